import Adapters
import Domain
import Foundation
import PortContracts
import Testing

/// A hooks directory whose every hook writes its environment (`env -0`:
/// NUL-separated, since RETIME_TARGETS spans lines) to `NAME.PID.env`, and
/// reads the events back from those files.
struct RecordingHooksDirectory: Sendable {
    let directory = TemporaryDirectory()
    var hooks: String { directory.file("hooks") }
    var log: String { directory.file("logs/hooks.log") }

    init(script: String = #"env -0 > "$0.$$.tmp"; mv "$0.$$.tmp" "$0.$$.env""#) throws {
        try FileManager.default.createDirectory(atPath: hooks, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        for kind in SessionEvent.Kind.allCases { try install(kind.rawValue, script) }
    }

    func install(_ name: String, _ body: String, mode: Int = 0o755) throws {
        let path = hooks + "/" + name
        try ("#!/bin/sh\n" + body + "\n").write(toFile: path, atomically: true, encoding: .utf8)
        try FileManager.default.setAttributes([.posixPermissions: mode], ofItemAtPath: path)
    }

    /// The environments written so far, waiting up to 10 s for `count`.
    func environments(_ count: Int) async throws -> [[String: String]] {
        let deadline = ContinuousClock.now + .seconds(10)
        while true {
            let files = try FileManager.default.contentsOfDirectory(atPath: hooks).filter { $0.hasSuffix(".env") }
            if files.count >= count || ContinuousClock.now > deadline {
                return try files.map { try Self.parse(String(contentsOfFile: hooks + "/" + $0, encoding: .utf8)) }
            }
            try await Task.sleep(for: .milliseconds(20))
        }
    }

    /// `env -0` output back into variables.
    static func parse(_ text: String) -> [String: String] {
        var variables: [String: String] = [:]
        for entry in text.split(separator: "\0") {
            guard let equals = entry.firstIndex(of: "=") else { continue }
            variables[String(entry[..<equals])] = String(entry[entry.index(after: equals)...])
        }
        return variables
    }

    /// An event as a hook saw it, from its environment.
    static func event(from variables: [String: String]) throws -> SessionEvent {
        func value(_ key: String) -> String? { variables[key].flatMap { $0.isEmpty ? nil : $0 } }
        return SessionEvent(
            kind: try #require(SessionEvent.Kind(rawValue: variables["RETIME_EVENT"] ?? "")),
            at: try #require(Timestamp.parse(variables["RETIME_AT"] ?? "")),
            sessionId: value("RETIME_SESSION_ID").flatMap { UUID(uuidString: $0) }.map(SessionID.init),
            groupName: value("RETIME_GROUP"),
            targets: try (value("RETIME_TARGETS")?.split(separator: "\n") ?? []).map { try Target(parsing: String($0)) },
            plannedEnd: value("RETIME_PLANNED_END").flatMap(Timestamp.parse),
            origin: try #require(SessionOrigin(variables["RETIME_ORIGIN"] ?? "")),
            outcome: value("RETIME_OUTCOME").flatMap(SessionOutcome.init(rawValue:)),
            warning: value("RETIME_INTERVAL_EVENT").flatMap(IntervalEventKind.init(rawValue:)))
    }
}

@Suite("Hooks run as processes")
struct HookProcessTests {
    static func logger() -> Logger { Logger(label: "test", handler: InMemoryLogHandler()) }

    @Test(arguments: EventHooksContract.checks)
    func contract(_ check: ContractCheck<EventHooksContract.Factory>) async throws {
        try await check.run {
            let directory = try RecordingHooksDirectory()
            let hooks = ProcessEventHooks(directory: directory.hooks, logPath: directory.log, logger: Self.logger())
            return .init(hooks: hooks, heard: { count in try await directory.environments(count).map(RecordingHooksDirectory.event) })
        }
    }

    @Test(arguments: EventHooksContract.checks)
    func inMemoryContract(_ check: ContractCheck<EventHooksContract.Factory>) async throws {
        try await check.run {
            let hooks = InMemoryEventHooks()
            return .init(hooks: hooks, heard: { _ in hooks.events })
        }
    }

    @Test("a hook that outlives its limit is killed with its children, and the caller never waits for it")
    func timeLimit() async throws {
        let directory = try RecordingHooksDirectory()
        try directory.install("session-started", #"sleep 60 & echo "$$ $!" > "$0.pid"; wait"#)
        let hooks = ProcessEventHooks(directory: directory.hooks, logPath: directory.log, timeout: .milliseconds(500), logger: Self.logger())
        let began = ContinuousClock.now
        hooks.run(EventHooksContract.event(.sessionStarted, at: 0))
        #expect(ContinuousClock.now - began < .seconds(1), "run returned at once")
        let pidFile = directory.hooks + "/session-started.pid"
        let pid = try await eventually { try? String(contentsOfFile: pidFile, encoding: .utf8) }
        let pids = pid.split(whereSeparator: \.isWhitespace).compactMap { Int32($0) }
        #expect(pids.count == 2, "the hook and its child")
        for pid in pids { _ = try await eventually { isGone(pid) ? true : nil } }
        let log = try await eventually { try? String(contentsOfFile: directory.log, encoding: .utf8).nilIfEmpty }
        #expect(log.contains("warning retime.hooks: event=session-started was killed after"))
    }

    @Test("a failing hook is logged; a hook that is not executable, or writable by others, is skipped with a warning")
    func failures() async throws {
        let directory = try RecordingHooksDirectory()
        try directory.install("session-ended", "echo going wrong >&2; exit 3")
        try directory.install("session-paused", "true", mode: 0o644)
        try directory.install("session-resumed", "touch \"$0.ran\"", mode: 0o777)
        let logs = InMemoryLogHandler()
        let hooks = ProcessEventHooks(directory: directory.hooks, logPath: directory.log, logger: Logger(label: "t", handler: logs))
        hooks.run(EventHooksContract.event(.sessionEnded, at: 0))
        hooks.run(EventHooksContract.event(.sessionPaused, at: 1))
        hooks.run(EventHooksContract.event(.sessionResumed, at: 2))
        let log = try await eventually { (try? String(contentsOfFile: directory.log, encoding: .utf8)).flatMap { $0.contains("status") ? $0 : nil } }
        #expect(log.contains("going wrong"), "the hook's own output is kept")
        #expect(log.contains("warning retime.hooks: event=session-ended failed with exit status 3"))
        #expect(logs.entries.contains { $0.message.contains("not an executable") })
        #expect(logs.entries.contains { $0.message.contains("writable by others") })
        #expect(!FileManager.default.fileExists(atPath: directory.hooks + "/session-resumed.ran"), "a world-writable hook is not run")
    }

    @Test("a hook printing 100 MB adds at most 64 KiB to the log, and a line saying how much it dropped")
    func boundedOutput() async throws {
        let directory = try RecordingHooksDirectory()
        try directory.install("session-started", "head -c 104857600 /dev/zero | tr '\\0' x; touch \"$0.done\"")
        ProcessEventHooks(directory: directory.hooks, logPath: directory.log, timeout: .seconds(30), logger: Self.logger())
            .run(EventHooksContract.event(.sessionStarted, at: 0))
        let log = try await eventually { (try? String(contentsOfFile: directory.log, encoding: .utf8)).flatMap { $0.contains("dropped") ? $0 : nil } }
        let size = try #require(try FileManager.default.attributesOfItem(atPath: directory.log)[.size] as? Int)
        #expect(size < 64 * 1024 + 512, "the log holds \(size) bytes")
        #expect(log.contains("event=session-started printed more than its share; bytes dropped: \(104_857_600 - 65_536)"))
    }

    @Test("a hook that is another user's symbolic link, or in a directory others may write, is not run", .enabled(if: geteuid() == 0))
    func foreignLinkAndDirectory() async throws {
        let directory = try RecordingHooksDirectory()
        let target = directory.directory.file("mine.sh")
        try "#!/bin/sh\ntouch \"$0.ran\"\n".write(toFile: target, atomically: true, encoding: .utf8)
        #expect(chmod(target, 0o755) == 0)
        let link = directory.hooks + "/session-started"
        try FileManager.default.removeItem(atPath: link)
        try FileManager.default.createSymbolicLink(atPath: link, withDestinationPath: target)
        #expect(lchown(link, 65_534, 65_534) == 0)
        let logs = InMemoryLogHandler()
        let hooks = ProcessEventHooks(directory: directory.hooks, logPath: directory.log, logger: Logger(label: "t", handler: logs))
        hooks.run(EventHooksContract.event(.sessionStarted, at: 0))
        #expect(logs.entries.contains { $0.message.contains("symbolic link that is not yours") })

        #expect(chmod(directory.hooks, 0o777) == 0)
        try directory.install("session-ended", "touch \"$0.ran\"")
        hooks.run(EventHooksContract.event(.sessionEnded, at: 1))
        #expect(logs.entries.contains { $0.message.contains("hooks directory is writable by others") })
        try await Task.sleep(for: .milliseconds(300))
        #expect(!FileManager.default.fileExists(atPath: target + ".ran") && !FileManager.default.fileExists(atPath: directory.hooks + "/session-ended.ran"))
    }

    @Test("a hook inherits none of the caller's open files (locks stay the caller's)")
    func noInheritedDescriptors() async throws {
        let directory = try RecordingHooksDirectory()
        try directory.install("session-started", #"ls /proc/$$/fd > "$0.fds""#)
        let held = open(directory.directory.file("held.lock"), O_RDWR | O_CREAT, 0o600)   // not close-on-exec on purpose
        defer { close(held) }
        ProcessEventHooks(directory: directory.hooks, logPath: directory.log, logger: Self.logger())
            .run(EventHooksContract.event(.sessionStarted, at: 0))
        let fds = try await eventually { try? String(contentsOfFile: directory.hooks + "/session-started.fds", encoding: .utf8).nilIfEmpty }
        let numbers = fds.split(separator: "\n").compactMap { Int($0) }
        #expect(numbers.allSatisfy { $0 <= 2 || $0 >= 10 }, "only stdin, stdout, stderr (and the shell's own script fd): \(numbers)")
        #expect(!numbers.contains(Int(held)))
    }
}

/// Whether the process has ended: no such process, or a zombie (whose
/// reaping is up to its new parent, init, and not the hook runner's).
func isGone(_ pid: Int32) -> Bool {
    guard kill(pid, 0) == 0 else { return true }
    let stat = (try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8)) ?? ""
    return stat.split(separator: ")").last?.split(separator: " ").first == "Z"
}

/// Polls `probe` every 20 ms until it gives a value, for at most 15 s.
func eventually<T>(_ probe: () throws -> T?) async throws -> T {
    let deadline = ContinuousClock.now + .seconds(15)
    while ContinuousClock.now < deadline {
        if let value = try probe() { return value }
        try await Task.sleep(for: .milliseconds(20))
    }
    return try #require(try probe(), "gave up waiting")
}

extension String {
    var nilIfEmpty: String? { isEmpty ? nil : self }
}
