import Foundation
import Synchronization
import Testing

/// `retime status --follow` as a status bar runs it: a long-lived process
/// whose every line is read as it comes, through a pipe or a terminal.
@Suite("status --follow for status bars")
struct StatusFollowTests {
    let retime = RetimeProcess()

    /// The lines a running follower has written so far, read as they come.
    final class Lines: Sendable {
        private let seen = Mutex<[String]>([])
        private let partial = Mutex<[UInt8]>([])

        /// Reads `handle` until its end or an error (a pseudo-terminal's
        /// master reads EIO once the follower is gone); `tee` sees every byte.
        init(_ handle: FileHandle, tee: StatusFollowTerminalTests.RawBytes? = nil) {
            Thread.detachNewThread { [self] in
                var buffer = [UInt8](repeating: 0, count: 4096)
                while case let count = read(handle.fileDescriptor, &buffer, buffer.count), count > 0 || (count < 0 && errno == EINTR) {
                    guard count > 0 else { continue }
                    tee?.append(Data(buffer[..<count]))
                    // Split as bytes: a terminal ends lines with CR LF,
                    // which a Swift String holds as one Character, so a
                    // String split on "\n" would never cut them.
                    let complete = partial.withLock { partial -> [ArraySlice<UInt8>] in
                        partial += buffer[..<count]
                        guard let cut = partial.lastIndex(of: UInt8(ascii: "\n")) else { return [] }
                        defer { partial.removeSubrange(...cut) }
                        return partial[..<cut].split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: false)
                    }
                    seen.withLock {
                        $0 += complete.map { String(decoding: $0.last == UInt8(ascii: "\r") ? $0.dropLast() : $0, as: UTF8.self) }
                    }
                }
            }
        }

        var all: [String] { seen.withLock { $0 } }

        /// Waits until the `count`th line has come; nil if it did not within `seconds`.
        func line(_ count: Int, within seconds: TimeInterval = promptly) -> String? {
            _ = eventually(within: seconds) { all.count >= count }
            let lines = all
            return lines.count >= count ? lines[count - 1] : nil
        }
    }

    func follow(_ arguments: String...) throws -> (RetimeProcess.Running, Lines) {
        let running = try retime.start(["status", "--follow"] + arguments)
        return (running, Lines(running.out.fileHandleForReading))
    }

    func stop(_ running: RetimeProcess.Running) {
        kill(running.process.processIdentifier, SIGTERM)
        running.process.waitUntilExit()
    }

    func json(_ line: String?) -> [String: Any] {
        (line.flatMap { try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any] }) ?? [:]
    }

    @Test("through a pipe: one line at first and one per start, pause, resume and stop; a change of other data prints none")
    func oneLinePerChange() throws {
        try retime.run("group", "create", "focus")
        let (follower, lines) = try follow("--format", "json")
        defer { stop(follower) }
        #expect(json(lines.line(1))["active"] as? Bool == false, "\(lines.all)")
        try retime.run("start", "focus", "--for", "25m")
        let started = json(lines.line(2))
        #expect(started["active"] as? Bool == true && (started["session"] as? [String: Any])?["group"] as? String == "focus", "\(lines.all)")
        try retime.run("pause")
        #expect((json(lines.line(3))["session"] as? [String: Any])?["paused"] as? Bool == true, "\(lines.all)")
        // Data that does not change the line wakes the follower, which
        // prints nothing for it: the next line is the resume's.
        try retime.run("group", "create", "other")
        try retime.run("config", "set", "notify", "off")
        try retime.run("resume")
        #expect((json(lines.line(4))["session"] as? [String: Any])?["paused"] as? Bool == false, "\(lines.all)")
        try retime.run("stop")
        #expect(json(lines.line(5))["active"] as? Bool == false, "\(lines.all)")
        try retime.run("group", "create", "third")
        try retime.run("start", "other")
        #expect(json(lines.line(6))["active"] as? Bool == true, "\(lines.all)")
        #expect(lines.all.count == 6, "no extra line: \(lines.all)")
        #expect(follower.process.isRunning, "it follows on after a session ends")
    }

    @Test("a session's end is printed when it comes, with no other process running (the follower completes it itself)")
    func endWithoutDaemon() throws {
        try retime.run("group", "create", "focus")
        let (follower, lines) = try follow("--format", "plain")
        defer { stop(follower) }
        #expect(lines.line(1) == "", "no session: an empty line, which a bar shows as nothing")
        try retime.run("start", "focus", "--for", "2s")
        #expect(lines.line(2) == "focus 1m", "whole minutes, rounded up: \(lines.all)")
        let end = Date().addingTimeInterval(2)
        #expect(lines.line(3, within: 2 + promptly) == "", "\(lines.all)")
        #expect(Date() >= end.addingTimeInterval(-0.5), "not before the end")
        let log = try retime.run("log", "--json")
        #expect(log.out.contains("\"completed\""), "the follower's reconcile recorded the session: \(log.out)")
    }

    @Test("--interval prints the running session again, never more often, and stops when it ends")
    func interval() throws {
        try retime.run("group", "create", "focus")
        try retime.run("start", "focus", "--for", "4s")
        let (follower, lines) = try follow("--interval", "1s", "--format", "waybar")
        defer { stop(follower) }
        var arrivals: [Date] = []
        for count in 1...3 {
            _ = lines.line(count, within: 1 + promptly)
            arrivals.append(Date())
        }
        let texts = lines.all.prefix(3).map { json($0)["text"] as? String ?? "?" }
        #expect(texts.count == 3 && texts.allSatisfy { $0.hasPrefix("focus 0:0") }, "\(lines.all)")
        #expect(Set(texts).count == 3, "each line a second later: \(texts)")
        for (earlier, later) in zip(arrivals, arrivals.dropFirst()) {
            #expect(later.timeIntervalSince(earlier) > 0.8, "never faster than the interval: \(arrivals)")
        }
        let idle = try #require(eventually(within: 4 + promptly) { lines.all.last.map { json($0)["alt"] as? String == "idle" } ?? false } ? lines.all : nil)
        let afterEnd = idle.count
        // A write after the end wakes it; with no session it prints nothing more.
        try retime.run("group", "create", "other")
        try retime.run("start", "other", "--for", "30m")
        #expect(json(lines.line(afterEnd + 1))["text"] as? String == "other 30:00", "to the second, as the interval is: \(lines.all)")
    }

    @Test("when the bar goes away (its end of the pipe closed), the next line ends the follower")
    func barGoesAway() throws {
        try retime.run("group", "create", "focus")
        let running = try retime.start(["status", "--follow"])
        // The first line (an empty one), read here: no reader thread is
        // left on the descriptor being closed.
        var byte: UInt8 = 0
        #expect(read(running.out.fileHandleForReading.fileDescriptor, &byte, 1) == 1 && byte == UInt8(ascii: "\n"))
        try running.out.fileHandleForReading.close()
        try retime.run("start", "focus")
        #expect(eventually(within: promptly) { !running.process.isRunning }, "a follower writing to no one lingers")
        if running.process.isRunning { stop(running) }
    }

    @Test("a damaged data file does not end the follower: the bar says so, stderr why, and a repair brings the status back")
    func damagedFile() throws {
        try retime.run("group", "create", "focus")
        let (follower, lines) = try follow("--format", "waybar")
        defer { stop(follower) }
        _ = lines.line(1)
        try retime.run("start", "focus", "--for", "25m")
        #expect(json(lines.line(2))["alt"] as? String == "active", "\(lines.all)")
        let log = try retime.changeLog("session")
        let intact = try Data(contentsOf: URL(fileURLWithPath: log))
        try (intact + Data("garbage\n{\"x\"\n".utf8)).write(to: URL(fileURLWithPath: log))
        let damaged = json(lines.line(3))
        #expect(damaged["alt"] as? String == "error" && damaged["text"] as? String == "retime: error", "\(lines.all)")
        #expect((damaged["tooltip"] as? String)?.contains("session.jsonl") == true, "\(damaged)")
        #expect(follower.process.isRunning)
        try intact.write(to: URL(fileURLWithPath: log))
        #expect(json(lines.line(4))["alt"] as? String == "active", "repaired: \(lines.all)")
        #expect(lines.all.count == 4, "the damage is shown once: \(lines.all)")
    }

    @Test("a data folder that does not exist yet is followed from its first session")
    func absentFolder() throws {
        let later = RetimeProcess(dataDirectory: retime.dataDirectory + "-later")
        let running = try later.start(["status", "--follow"])
        defer { stop(running) }
        let lines = Lines(running.out.fileHandleForReading)
        #expect(lines.line(1) == "", "\(lines.all)")
        try later.run("group", "create", "focus")
        try later.run("start", "focus")
        #expect(lines.line(2) == "focus 0m", "open-ended: the time so far: \(lines.all)")
    }

    @Test("bad options are usage errors (exit 2) that say why", arguments: [
        (["status", "--format", "waybar"], "--follow"),
        (["status", "--follow", "--format", "xml"], "plain, json, waybar or i3blocks"),
        (["status", "--follow", "--interval", "0s"], "at least 1s"),
        (["status", "--follow", "--watch"], "not both"),
        (["--json", "status", "--follow", "--format", "waybar"], "--json"),
    ])
    func badOptions(arguments: [String], says: String) throws {
        let outcome = try retime.run(arguments)
        #expect(outcome.status == 2 && outcome.err.contains(says), "\(outcome.status) \(outcome.err)")
    }
}
