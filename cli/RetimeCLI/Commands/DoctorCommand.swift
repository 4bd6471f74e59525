import Adapters
import Domain
import Foundation

/// `retime doctor [--repair]`: checks permissions, every data file, backups,
/// history, the daemon and stale blocks. It works on concrete files, not
/// through the services, so it runs even when they cannot start.
struct DoctorCommand: RetimeCommand {
    static let spec = CommandSpec("doctor", summary: "Check the data directory; --repair fixes what it safely can.",
                                  discussion: "A damaged file is moved aside (never deleted) and the newest readable backup restored.",
                                  options: [.flag("repair", help: "Repair what was found.")])
    static let reconcilesFirst = false
    static let usesServices = false

    struct Check {
        enum Status: String { case ok, warning, error, repaired }
        var name: String
        var status: Status
        var detail: String
    }

    let repair: Bool
    init(_ parsed: ParsedCommand, values: DateValue) { repair = parsed.flag("repair") }

    func run(_ context: CommandContext) async throws -> CommandResult {
        let data = context.runtime.dataDirectory
        var checks = [permissions(data)]
        let store = JSONFileStore(directory: data + "/store")
        for suite in Set(store.suiteNames() + ["groups", "session", "config"]).sorted() {
            checks.append(try suiteCheck(suite, store: store))
        }
        checks.append(contentsOf: tempFileChecks(store))
        checks.append(deviceCheck(data))
        checks.append(historyCheck(data, context: context))
        checks.append(await auditCheck(data))
        checks.append(hooksCheck(data, store: store))
        let pid = DaemonLock(dataDirectory: data).runningPID()
        checks.append(Check(name: "daemon", status: pid == nil ? .warning : .ok,
                            detail: pid.map { "running (pid \($0))" } ?? "not running; sessions end when a command next runs"))
        do { checks.append(try await staleBlockCheck(store, context: context)) } catch {
            // The shield's own file (a hosts file in the way, say) is a
            // finding like any other, not a reason to print no report.
            checks.append(Check(name: "blocks", status: .error, detail: "cannot check or lift the block: \(error)"))
        }
        if let shieldTest = await shieldTestCheck(store, context: context) { checks.append(shieldTest) }

        let problems = checks.filter { $0.status == .error }
        let json = Documents.document([
            "ok": .bool(problems.isEmpty),
            "checks": .array(checks.map { .object(["name": .string($0.name), "status": .string($0.status.rawValue), "detail": .string($0.detail)]) }),
        ])
        let human = checks.map { check in
            let mark = switch check.status {
            case .ok: context.style.green("ok")
            case .warning: context.style.yellow("warning")
            case .error: context.style.red("error")
            case .repaired: context.style.green("repaired")
            }
            return "\(mark)  \(check.name): \(check.detail)"
        }.joined(separator: "\n")
        guard problems.isEmpty else { throw DoctorFindings(count: problems.count, report: human, json: json) }
        return CommandResult(json: json, human: human)
    }

    private func permissions(_ data: String) -> Check {
        // stat(2) rather than FileManager's attributes, which also look the
        // owner's name up (NSS, which a static binary loads at run time).
        var info = stat()
        guard stat(data, &info) == 0 else {
            return Check(name: "data directory", status: .ok, detail: "\(data) does not exist yet (made on first write)")
        }
        let mode = Int(info.st_mode & 0o7777)
        if mode & 0o077 != 0 {
            if repair, chmod(data, 0o700) == 0 {
                return Check(name: "data directory", status: .repaired, detail: "\(data) was readable by others; now 0700")
            }
            return Check(name: "data directory", status: .warning, detail: "\(data) is mode \(String(mode, radix: 8)); expected 700")
        }
        return Check(name: "data directory", status: .ok, detail: data)
    }

    private func suiteCheck(_ suite: String, store: JSONFileStore) throws -> Check {
        let backups = (try? store.validBackups(of: suite).count) ?? 0
        switch store.health(of: suite) {
        case .missing: return Check(name: "\(suite) data", status: .ok, detail: "none yet")
        case .healthy(let keys):
            return Check(name: "\(suite) data", status: .ok, detail: "\(keys) entr\(keys == 1 ? "y" : "ies"), \(backups) backup(s)")
        case .damaged(let error):
            guard repair else {
                return Check(name: "\(suite) data", status: .error, detail: "\(error); \(backups) readable backup(s); run 'retime doctor --repair'")
            }
            let done = try store.repair(suite)
            let restored = done.restoredFrom.map { from in
                "restored \(from)" + (done.backupWrittenAt.map { "; changes after \(LocalTime.dateTime($0)) are lost" } ?? "")
            } ?? "no readable backup: it starts empty and everything it held is lost"
            return Check(name: "\(suite) data", status: .repaired, detail: "moved the damaged file to \(done.movedTo); \(restored)")
        }
    }

    private func historyCheck(_ data: String, context: CommandContext) -> Check {
        let history = JSONLinesSessionHistory(directory: data + "/history", deviceID: "unused",
                                              logger: Logger(label: "retime.doctor", handler: InMemoryLogHandler(logLevel: .critical)))
        guard let audit = try? history.audit() else { return Check(name: "history", status: .error, detail: "cannot read \(data)/history") }
        guard audit.malformed.isEmpty else {
            let lines = audit.malformed.prefix(5).map { "\($0.path):\($0.number)" }.joined(separator: ", ")
            return Check(name: "history", status: .warning,
                         detail: "\(audit.sessions) sessions; \(audit.malformed.count) unreadable line(s) skipped: \(lines)")
        }
        return Check(name: "history", status: .ok, detail: "\(audit.sessions) sessions in \(audit.segments) segment(s)")
    }

    /// Whether the block agrees with the session: a block whose session is
    /// no longer active (a crash between the steps of an ending), or that is
    /// up during a break, is lifted on repair; a running session whose block
    /// is down (a start killed before it raised it) has it raised.
    private func staleBlockCheck(_ store: JSONFileStore, context: CommandContext) async throws -> Check {
        func readable(_ suite: String) -> Bool {
            if case .damaged = store.health(of: suite) { return false }
            return true
        }
        guard readable(RecordingShield.suite), readable(StoreSessionRepository.suite), readable(StoreSettings.suite) else {
            return Check(name: "blocks", status: .warning, detail: "not checked: the session, shield or config data is damaged")
        }
        let shields = ConfiguredShields(store: store, logger: Logger(label: "retime.doctor", handler: InMemoryLogHandler(logLevel: .critical)),
                                        dataDirectory: context.runtime.dataDirectory, socketPath: context.runtime.shieldSocket)
        let current = try await StoreSessionRepository(store: store).current()
        let shield = try current.map(shields.shield(of:)) ?? shields.configured()
        let block = try await shield.state()
        let running = current.flatMap { $0.isActive ? $0 : nil }
        switch (block, running) {
        case (nil, nil):
            return Check(name: "blocks", status: .ok, detail: "no session runs and no block is up")
        case (nil, let session?) where session.isPaused:
            return Check(name: "blocks", status: .ok, detail: "the session is on a break; no block is up")
        case (nil, let session?):
            guard repair else {
                return Check(name: "blocks", status: .warning,
                             detail: "the running session's block is down (an interrupted start); the next command raises it")
            }
            let targets = try await StoreGroupRepository(store: store).group(id: session.groupId)?.targets ?? []
            try await shield.raise(targets, for: session)
            return Check(name: "blocks", status: .repaired, detail: "raised the running session's block")
        case (let block?, let session?) where block.session == session.id && !session.isPaused:
            let what = shield.identity == RecordingShield.identity ? "recorded (the 'none' shield blocks nothing)" : "up (\(shield.identity))"
            return Check(name: "blocks", status: .ok, detail: "the running session's block is \(what)")
        case (let block?, let session):
            let why = session?.id == block.session ? "during the session's break" : "for a session that is no longer running"
            guard repair else { return Check(name: "blocks", status: .warning, detail: "a block is up \(why)") }
            try await shield.lower(for: block.session)
            return Check(name: "blocks", status: .repaired, detail: "lifted a block that was up \(why)")
        }
    }
}

/// Doctor found problems it did not repair: exit 4, with the report.
struct DoctorFindings: RetimeCLIError, ReportingError {
    var count: Int
    var report: String
    var json: JSONValue
    var code: String { "store.problemsFound" }
    var exitCode: Int32 { 4 }
    var hint: String? { "run 'retime doctor --repair' to move damaged files aside and restore backups" }
    var description: String { "doctor found \(count) problem(s)" }
}
