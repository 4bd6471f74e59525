import Domain
import Foundation

/// The rules of `HealthInspector`: its findings are named, say something,
/// and a repair leaves nothing it could repair behind.
public enum HealthInspectorContract {
    /// An inspector over a world the factory damaged in a way it can repair
    /// (`damaged` true), or left healthy.
    public typealias Factory = @Sendable (_ damaged: Bool) async throws -> any HealthInspector

    /// Every inspector keeps these; one that repairs something keeps
    /// `repairChecks` too.
    public static let checks: [ContractCheck<Factory>] = [
        ContractCheck("a healthy world: every finding named and explained, none an error, nothing repaired") { make in
            let checks = await (try make(false)).inspect(repairing: false)
            try require(!checks.isEmpty, "no findings at all")
            for check in checks {
                try require(!check.name.isEmpty && !check.detail.isEmpty, "an unnamed or unexplained finding: \(check)")
                try require(check.status != .error && check.status != .repaired, "\(check.name): \(check.status) on a healthy world")
            }
        },
    ]

    public static let repairChecks: [ContractCheck<Factory>] = [
        ContractCheck("a damaged world: found without repairing, repaired when asked, then healthy") { make in
            let inspector = try await make(true)
            let found = await inspector.inspect(repairing: false)
            try require(found.contains { $0.status == .error || $0.status == .warning }, "the damage went unseen: \(found)")
            try require(!found.contains { $0.status == .repaired }, "repaired without being asked: \(found)")
            let repaired = await inspector.inspect(repairing: true)
            try require(repaired.contains { $0.status == .repaired }, "nothing repaired: \(repaired)")
            let after = await inspector.inspect(repairing: false)
            try require(!after.contains { $0.status == .error }, "still an error after the repair: \(after)")
        },
    ]
}
