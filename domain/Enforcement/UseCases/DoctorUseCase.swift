import RetimeSession
import RetimeShared

/// `doctor`: every inspector's findings (the data directory's files, the
/// services' wiring), whether the daemon runs, whether the block agrees
/// with the session, and whether the running session's block holds for the
/// user (`shield test` over its first targets). With `repairing`, each part
/// repairs what it safely can.
public struct DoctorUseCase: Sendable {
    private let inspectors: [any HealthInspector]
    private let daemon: any DaemonPresence
    private let blocks: CheckBlocksUseCase
    private let test: TestShieldUseCase?
    private let sessions: any SessionRepository

    /// How many targets the shield test tries (each costs a lookup and a connection).
    public static let shieldTestLimit = 20

    /// `test` is nil when the configured shield cannot be built (its
    /// settings are damaged): doctor still reports everything else.
    public init(inspectors: [any HealthInspector], daemon: any DaemonPresence, blocks: CheckBlocksUseCase, test: TestShieldUseCase?,
                sessions: any SessionRepository) {
        self.inspectors = inspectors
        self.daemon = daemon
        self.blocks = blocks
        self.test = test
        self.sessions = sessions
    }

    public func execute(repairing: Bool) async -> [HealthCheck] {
        var checks: [HealthCheck] = []
        for inspector in inspectors { checks += await inspector.inspect(repairing: repairing) }
        let running = daemon.running()
        checks.append(HealthCheck(name: "daemon", status: running == nil ? .warning : .ok,
                                  detail: running.map { "running (pid \($0.pid))" } ?? "not running; sessions end when a command next runs"))
        // The slot is read once, for the blocks and the shield test.
        let current: Result<Session?, any Error>
        do { current = .success(try await sessions.current()) } catch { current = .failure(error) }
        checks.append(await blocks.execute(current, repairing: repairing))
        if let shieldTest = await shieldTest(try? current.get()) { checks.append(shieldTest) }
        return checks
    }

    /// Nil when no session's block is up to test (none runs, it is on a
    /// break, or its shield only records).
    private func shieldTest(_ current: Session?) async -> HealthCheck? {
        guard let session = current, session.isActive, !session.blockIsLifted,
              let shield = session.shield, shield != "none" else { return nil }
        let checks: [TargetCheck]
        do {
            guard let test else { throw SessionError.shieldFailed("the configured shield cannot be built") }
            checks = try await test.execute(of: session, limit: Self.shieldTestLimit)
        } catch {
            return HealthCheck(name: "shield test", status: .warning, detail: "could not test the block: \(error)")
        }
        let open = checks.filter { $0.verdict == .open }, unknown = checks.filter { $0.verdict == .unknown }
        guard !open.isEmpty || !unknown.isEmpty else {
            return HealthCheck(name: "shield test", status: .ok, detail: "every target tested (\(checks.count)) is blocked for you")
        }
        func named(_ found: [TargetCheck], _ why: (TargetCheck) -> [String]) -> String {
            found.prefix(3).map { "\($0.target.displayName) (\(why($0).joined(separator: ", ")))" }.joined(separator: ", ")
        }
        var findings: [String] = []
        if !open.isEmpty { findings.append("\(open.count) of \(checks.count) targets can still be reached: \(named(open) { $0.leaks.map(\.layer) })") }
        if !unknown.isEmpty {
            findings.append("\(unknown.count) of \(checks.count) targets could not be shown blocked (unknown): \(named(unknown, \.unknowns))")
        }
        return HealthCheck(name: "shield test", status: .warning, detail: findings.joined(separator: "; ") + "; see 'retime shield test'")
    }
}
