#if canImport(Glibc)
import Glibc
#endif
import Foundation
import Synchronization
import Testing

/// `retime status --follow` on a pseudo-terminal, as a terminal's user (or
/// a bar that reads through a pty) runs it: the pty is the follower's
/// controlling terminal, in a session of its own (`setsid --ctty`), so its
/// line discipline, job control and hangup apply as they do in a terminal.
@Suite("status --follow on a pseudo-terminal", .enabled(if: FileManager.default.isExecutableFile(atPath: "/usr/bin/setsid")))
struct StatusFollowTerminalTests {
    let retime = RetimeProcess()

    /// A pseudo-terminal pair: the test reads the master, the follower has the slave.
    struct Terminal {
        let master: FileHandle
        let slave: FileHandle

        init() throws {
            // /dev/ptmx, unlocked and named by ioctl (posix_openpt and
            // ptsname are not imported into Swift's Glibc).
            let master = open("/dev/ptmx", O_RDWR | O_NOCTTY)
            var unlock: CInt = 0, number: CUnsignedInt = 0
            guard master >= 0, ioctl(master, 0x4004_5431 /* TIOCSPTLCK */, &unlock) == 0,
                  ioctl(master, 0x8004_5430 /* TIOCGPTN */, &number) == 0 else { throw POSIXError(.ENXIO) }
            // The peer by the master (TIOCGPTPEER), not by a path that
            // could name another devpts instance's terminal.
            let slave = ioctl(master, 0x5441 /* TIOCGPTPEER */, O_RDWR | O_NOCTTY)
            guard slave >= 0 else { throw POSIXError(.ENXIO) }
            self.master = FileHandle(fileDescriptor: master, closeOnDealloc: true)
            self.slave = FileHandle(fileDescriptor: slave, closeOnDealloc: true)
        }
    }

    /// The follower, started on the terminal's slave as its controlling
    /// terminal; the slave is closed here at once, so the master reads EIO
    /// (the end) when the follower is gone.
    /// Without `reading`, no thread reads the master (a thread blocked in
    /// `read` would keep it open past the test's close, and the terminal
    /// would not hang up): the lines are nil.
    func follow(on terminal: Terminal, _ arguments: [String], reading: Bool = true) throws -> (Follower, StatusFollowTests.Lines?, raw: RawBytes) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/setsid")
        // --ctty: the slave (stdin) becomes the controlling terminal.
        process.arguments = ["--ctty", RetimeProcess.executable.path, "--data-dir", retime.dataDirectory, "status", "--follow"] + arguments
        var environment = ProcessInfo.processInfo.environment
        environment["HOME"] = retime.dataDirectory + "-home"
        environment["TERM"] = "xterm-256color"
        for name in ["RETIME_HOME", "XDG_STATE_HOME", "DBUS_SESSION_BUS_ADDRESS", "XDG_RUNTIME_DIR", "NO_COLOR"] {
            environment.removeValue(forKey: name)
        }
        environment["RETIME_SHIELD_SOCKET"] = retime.dataDirectory + "-no-service.sock"
        environment["DBUS_SYSTEM_BUS_ADDRESS"] = "unix:path=" + retime.dataDirectory + "-no-system-bus"
        process.environment = environment
        process.standardInput = terminal.slave
        process.standardOutput = terminal.slave
        process.standardError = terminal.slave
        try process.run()
        try terminal.slave.close()
        let raw = RawBytes()
        let lines = reading ? StatusFollowTests.Lines(terminal.master, tee: raw) : nil
        // setsid forks (Process makes its child a group leader), so the
        // follower is the terminal's session leader, asked of the master.
        var session: pid_t = 0
        _ = eventually(within: promptly) { ioctl(terminal.master.fileDescriptor, 0x5429 /* TIOCGSID */, &session) == 0 && session > 0 }
        return (Follower(pid: session), lines, raw)
    }

    /// The follower by its pid (a child of setsid's, not of this process).
    struct Follower {
        let pid: pid_t
        /// Alive and not a zombie.
        var isRunning: Bool {
            guard pid > 0, kill(pid, 0) == 0 else { return false }
            let stat = (try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8)) ?? ""
            return !(stat.split(separator: ")").last?.hasPrefix(" Z") ?? true)
        }
    }

    /// Every byte the terminal showed, to check for escape codes.
    final class RawBytes: Sendable {
        private let bytes = Mutex<[UInt8]>([])
        func append(_ data: Data) { bytes.withLock { $0 += data } }
        var all: [UInt8] { bytes.withLock { $0 } }
    }

    @Test("one line at first and one per start, pause and stop, each at once, with no escape code, progress bar or extra line")
    func linesOnATerminal() throws {
        try retime.run("group", "create", "focus")
        let terminal = try Terminal()
        let (follower, reader, raw) = try follow(on: terminal, ["--format", "plain"])
        let lines = try #require(reader)
        defer { if follower.isRunning { kill(follower.pid, SIGKILL) } }
        #expect(lines.line(1) == "", "no session: an empty line: \(lines.all)")
        try retime.run("start", "focus", "--for", "25m")
        #expect(lines.line(2) == "focus 25m", "\(lines.all)")
        try retime.run("pause")
        #expect(lines.line(3) == "focus paused", "\(lines.all)")
        try retime.run("group", "create", "other")
        try retime.run("stop")
        #expect(lines.line(4) == "", "\(lines.all)")
        #expect(lines.all.count == 4, "no extra line: \(lines.all)")
        #expect(!raw.all.contains(0x1B), "no escape code: \(raw.all)")
        #expect(!raw.all.contains(UInt8(ascii: "\r")) || raw.all.filter { $0 == UInt8(ascii: "\r") }.count == 4,
                "only the terminal's CR before each LF: \(raw.all)")
        #expect(follower.isRunning)
    }

    @Test("ends on INT (the terminal's ^C) and on the terminal's hangup", arguments: ["INT", "HUP"])
    func endsOnSignal(signal: String) throws {
        let terminal = try Terminal()
        let (follower, _, _) = try follow(on: terminal, [], reading: false)
        defer { if follower.isRunning { kill(follower.pid, SIGKILL) } }
        // The first line (an empty one), read here with a deadline.
        var ready = pollfd(fd: terminal.master.fileDescriptor, events: Int16(POLLIN), revents: 0)
        var first = [UInt8](repeating: 0, count: 16)
        #expect(poll(&ready, 1, Int32(promptly * 1000)) == 1 && read(terminal.master.fileDescriptor, &first, first.count) == 2
                && first.prefix(2) == [UInt8(ascii: "\r"), UInt8(ascii: "\n")], "\(first)")
        if signal == "INT" {
            // ^C typed on the terminal: the line discipline sends INT to its foreground group.
            terminal.master.write(Data([0x03]))
        } else {
            // The terminal closed: the kernel sends HUP to its session's leader.
            try terminal.master.close()
        }
        let ended = eventually(within: promptly) { !follower.isRunning }
        #expect(ended, "\(signal) ended the follower")
    }
}
