import Adapters
import Domain
import Foundation

/// Doctor's look at the running session's block from the user's side:
/// `shield test` over its first targets.
extension DoctorCommand {
    /// How many targets doctor tests (each costs a lookup and a connection).
    static let shieldTestLimit = 20

    /// Nil when no session's block is up to test (none runs, it is on a
    /// break, or the `none` shield blocks nothing).
    func shieldTestCheck(_ store: JSONFileStore, context: CommandContext) async -> Check? {
        guard let session = try? await StoreSessionRepository(store: store).current(), session.isActive, !session.isPaused,
              let shield = session.shield, shield != RecordingShield.identity else { return nil }
        // Built here, as doctor's other checks are: it runs without the
        // container, on data that may be damaged.
        let shields = ConfiguredShields(store: store, logger: Logger(label: "retime.doctor", handler: InMemoryLogHandler(logLevel: .critical)),
                                        dataDirectory: context.runtime.dataDirectory, socketPath: context.runtime.shieldSocket)
        let checks: [TargetCheck]
        do {
            let test = TestShieldUseCase(sessions: StoreSessionRepository(store: store),
                                         groups: GroupRepositoryLookup(groups: StoreGroupRepository(store: store)), inspector: try shields.inspector())
            checks = try await test.execute([], limit: Self.shieldTestLimit)
        } catch {
            return Check(name: "shield test", status: .warning, detail: "could not test the block: \(error)")
        }
        let open = checks.filter { !$0.blocked }
        guard !open.isEmpty else {
            return Check(name: "shield test", status: .ok, detail: "every target tested (\(checks.count)) is blocked for you")
        }
        let named = open.prefix(3).map { check in
            "\(check.target.displayName) (\(check.leaks.map(\.layer).joined(separator: ", ")))"
        }.joined(separator: ", ")
        return Check(name: "shield test", status: .warning,
                     detail: "\(open.count) of \(checks.count) targets can still be reached: \(named); see 'retime shield test'")
    }
}
