import RetimeSession
import RetimeShared

/// `doctor`: every inspector's findings (the data directory's files, the
/// services' wiring), whether the daemon runs, whether the block agrees
/// with the session, and whether the running session's block holds for the
/// user (`shield test` over its first targets). With `repairing`, each part
/// repairs what it safely can. The session slot is read once, for every
/// part that asks about the running session.
public struct DoctorUseCase: Sendable {
    /// One part of the findings, in the order they are reported.
    public enum Inspection: Sendable {
        /// Checks that need nothing of the session (the data directory's
        /// files: repaired before the slot is read).
        case inspector(any HealthInspector)
        /// Checks of the running session: handed the slot as read once.
        case session(any SessionHealthInspector)
    }

    private let inspections: [Inspection]
    private let daemon: any DaemonPresence
    private let blocks: CheckBlocksUseCase
    private let test: TestShieldUseCase?
    private let sessions: any SessionRepository

    /// How many targets the shield test tries (each costs a lookup and a connection).
    public static let shieldTestLimit = 20

    /// `test` is nil when the configured shield cannot be built (its
    /// settings are damaged): doctor still reports everything else.
    public init(inspections: [Inspection], daemon: any DaemonPresence, blocks: CheckBlocksUseCase, test: TestShieldUseCase?,
                sessions: any SessionRepository) {
        self.inspections = inspections
        self.daemon = daemon
        self.blocks = blocks
        self.test = test
        self.sessions = sessions
    }

    public func execute(repairing: Bool) async -> [HealthCheck] {
        var checks: [HealthCheck] = []
        // The slot is read once, when a part first asks (after the files'
        // inspector has repaired what it may), for that part, the blocks
        // and the shield test.
        var read: Result<Session?, any Error>?
        func slot() async -> Result<Session?, any Error> {
            if let read { return read }
            let result: Result<Session?, any Error>
            do { result = .success(try await sessions.current()) } catch { result = .failure(error) }
            read = result
            return result
        }
        for inspection in inspections {
            switch inspection {
            case .inspector(let inspector): checks += await inspector.inspect(repairing: repairing)
            case .session(let inspector): checks += await inspector.inspect(repairing: repairing, running: try? await slot().get())
            }
        }
        let running = daemon.running()
        checks.append(HealthCheck(name: "daemon", status: running == nil ? .warning : .ok,
                                  detail: running.map { "running (pid \($0.pid))" } ?? "not running; sessions end when a command next runs"))
        let current = await slot()
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
