import Domain
import Foundation

/// The rules of `SessionHealthInspector`: for no session and for a running
/// one, its findings are named, say something, and none is an error or a
/// repair in a healthy world. It reads nothing of the session itself (the
/// doctor hands it the slot; `ActiveSessionCountTests` counts the reads).
public enum SessionHealthInspectorContract {
    /// An inspector over a healthy world.
    public typealias Factory = @Sendable () async throws -> any SessionHealthInspector

    public static let checks: [ContractCheck<Factory>] = [
        ContractCheck("a healthy world, with no session and with one running: every finding named and explained, none an error") { make in
            let inspector = try await make()
            for running in [nil, Fixtures.session(startingAt: 0)] as [Session?] {
                let checks = await inspector.inspect(repairing: false, running: running)
                try require(!checks.isEmpty, "no findings at all (session: \(running != nil))")
                for check in checks {
                    try require(!check.name.isEmpty && !check.detail.isEmpty, "an unnamed or unexplained finding: \(check)")
                    try require(check.status != .error && check.status != .repaired, "\(check.name): \(check.status) on a healthy world")
                }
            }
        },
    ]
}
