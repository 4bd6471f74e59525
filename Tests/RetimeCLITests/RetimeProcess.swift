import Foundation

/// Runs the built `retime` binary as a real process in a temporary data
/// directory (never the user's own), capturing what it prints.
struct RetimeProcess: Sendable {
    struct Outcome: Sendable {
        var status: Int32
        var out: String
        var err: String

        /// The one JSON document on stdout.
        var json: [String: Any] {
            (try? JSONSerialization.jsonObject(with: Data(out.utf8))) as? [String: Any] ?? [:]
        }

        /// stdout as prose: the lines a message was wrapped into (to the
        /// terminal's width, 80 columns otherwise) joined again.
        var prose: String {
            (out.hasSuffix("\n") ? String(out.dropLast()) : out).replacingOccurrences(of: "\n *", with: " ", options: .regularExpression)
        }

        /// `doctor`'s findings, one each: a long finding's indented lines
        /// joined back to it, as `prose` joins a paragraph.
        var findings: [String] {
            out.split(separator: "\n").reduce(into: []) { found, line in
                if line.hasPrefix(" "), let last = found.indices.last {
                    found[last] += " " + line.drop { $0 == " " }
                } else {
                    found.append(String(line))
                }
            }
        }

        /// The JSON error document on stderr (`--json`).
        var errorCode: String? {
            let line = err.split(separator: "\n").first { $0.hasPrefix("{") }.map(String.init) ?? ""
            let document = (try? JSONSerialization.jsonObject(with: Data(line.utf8))) as? [String: Any]
            return (document?["error"] as? [String: Any])?["code"] as? String
        }
    }

    /// The debug build next to the tests, or `$RETIME_TEST_BINARY` (CI runs
    /// the end-to-end suites again against the static release binary, which
    /// is linked differently).
    static var executable: URL {
        if let path = ProcessInfo.processInfo.environment["RETIME_TEST_BINARY"], !path.isEmpty {
            return URL(fileURLWithPath: path)
        }
        return URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent().appendingPathComponent("retime")
    }

    /// Whether the binary names a dynamic loader (an ELF `PT_INTERP`
    /// program header), so that preloaded libraries reach it.
    static let isDynamicallyLinked: Bool = {
        guard let file = FileHandle(forReadingAtPath: executable.path),
              let bytes = try? [UInt8](file.read(upToCount: 64 * 1024) ?? Data()), bytes.count >= 64 else { return false }
        func word(_ offset: Int, _ size: Int) -> Int {
            (0..<size).reduce(0) { $0 | Int(bytes[offset + $1]) << (8 * $1) }
        }
        let table = word(0x20, 8), entrySize = word(0x36, 2), count = word(0x38, 2)
        return (0..<count).contains { index in
            let entry = table + index * entrySize
            return entry + 4 <= bytes.count && word(entry, 4) == 3 // PT_INTERP
        }
    }()

    let dataDirectory: String
    var environment: [String: String] = [:]
    /// A command that runs retime on our behalf, e.g. `setpriv` to drop root.
    var launcher: [String] = []

    /// A data directory of its own, made as retime makes one (0700), so a
    /// reading command finds it (a directory named by hand that does not
    /// exist is refused as a typo).
    init() {
        self.init(dataDirectory: FileManager.default.temporaryDirectory.appendingPathComponent("retime-e2e-\(UUID().uuidString)").path)
    }

    /// retime on a data directory the test chose (a folder another tool
    /// syncs, say), made if missing; HOME is still `DIR-home`.
    init(dataDirectory: String) {
        self.dataDirectory = dataDirectory
        try? FileManager.default.createDirectory(atPath: dataDirectory, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
    }

    /// Runs `retime --data-dir DIR ARGS...`, optionally feeding `input`.
    @discardableResult
    func run(_ arguments: String..., input: String? = nil) throws -> Outcome {
        try run(arguments, input: input)
    }

    func run(_ arguments: [String], input: String? = nil, withDataDir: Bool = true) throws -> Outcome {
        let process = try start(arguments, input: input, withDataDir: withDataDir)
        return try finish(process)
    }

    /// A write to a pipe whose reader has gone fails with EPIPE in this
    /// process, instead of ending it.
    private static let ignoringBrokenPipes: Void = { signal(SIGPIPE, SIG_IGN) }()

    /// Starts retime; `input`, if given, is its whole stdin (else /dev/null).
    func start(_ arguments: [String], input: String? = nil, withDataDir: Bool = true) throws -> Running {
        let process = Process()
        let command = launcher + [Self.executable.path] + (withDataDir ? ["--data-dir", dataDirectory] : []) + arguments
        process.executableURL = URL(fileURLWithPath: command[0])
        process.arguments = Array(command.dropFirst())
        var environment = ProcessInfo.processInfo.environment
        environment.removeValue(forKey: "RETIME_HOME")
        environment["NO_COLOR"] = "1"
        environment["HOME"] = dataDirectory + "-home"
        // The device id lives in $XDG_STATE_HOME, else under HOME: the
        // test's own home, never the machine's.
        environment.removeValue(forKey: "XDG_STATE_HOME")
        // Never the machine's own system service: a test that wants one
        // starts its own and says where.
        environment["RETIME_SHIELD_SOCKET"] = dataDirectory + "-no-service.sock"
        // No desktop: notifications (on by default) show only where a test
        // gives a session bus and a notify-send of its own.
        environment.removeValue(forKey: "DBUS_SESSION_BUS_ADDRESS")
        environment.removeValue(forKey: "XDG_RUNTIME_DIR")
        // Never the machine's system bus (logind): a test that wants one
        // starts its own (PrivateBus) and says where.
        environment["DBUS_SYSTEM_BUS_ADDRESS"] = "unix:path=" + dataDirectory + "-no-system-bus"
        process.environment = environment.merging(self.environment) { _, mine in mine }
        let out = Pipe(), err = Pipe()
        process.standardOutput = out
        process.standardError = err
        let stdin = input.map { _ in Pipe() }
        process.standardInput = stdin ?? FileHandle.nullDevice
        Self.ignoringBrokenPipes
        try process.run()
        if let stdin, let input {
            // A command that fails before it reads its stdin (a refusal, a
            // usage error) has closed it by the time a fast binary is
            // written to: that is an outcome to check, not a SIGPIPE that
            // kills the whole test process (it did, once, in CI's release run).
            try? stdin.fileHandleForWriting.write(contentsOf: Data(input.utf8))
            try stdin.fileHandleForWriting.close()
        }
        return Running(process: process, out: out, err: err)
    }

    struct Running {
        let process: Process
        let out: Pipe
        let err: Pipe
    }

    func finish(_ running: Running) throws -> Outcome {
        let out = running.out.fileHandleForReading.readDataToEndOfFile()
        let err = running.err.fileHandleForReading.readDataToEndOfFile()
        running.process.waitUntilExit()
        return Outcome(status: running.process.terminationReason == .uncaughtSignal ? -running.process.terminationStatus
                       : running.process.terminationStatus,
                       out: String(decoding: out, as: UTF8.self), err: String(decoding: err, as: UTF8.self))
    }

    func file(_ relative: String) -> String { dataDirectory + "/" + relative }

    /// A file of this device's own folder (`devices/<id>/<relative>`:
    /// `store/shield.json`, `events.jsonl`, `logs/daemon.log`, ...), in a data
    /// folder only this device has written.
    func deviceFile(_ relative: String) throws -> String {
        let devices = try FileManager.default.contentsOfDirectory(atPath: file("devices")).filter { !$0.hasPrefix(".") }
        guard devices.count == 1 else { throw CocoaError(.fileNoSuchFile, userInfo: [NSFilePathErrorKey: file("devices")]) }
        return file("devices/\(devices[0])/\(relative)")
    }

    /// This device's change log of a shared suite (`devices/<id>/changes/<suite>.jsonl`,
    /// docs/storage.md, "Devices"), in a data folder only this device has written.
    func changeLog(_ suite: String, ending: String = ".jsonl") throws -> String {
        let devices = try FileManager.default.contentsOfDirectory(atPath: file("devices")).filter { !$0.hasPrefix(".") }
        guard devices.count == 1 else { throw CocoaError(.fileNoSuchFile, userInfo: [NSFilePathErrorKey: file("devices")]) }
        return file("devices/\(devices[0])/changes/\(suite)\(ending)")
    }
}

/// How long an end-to-end test gives what the product does "at once" (a
/// signal handled, an app ended, a block lifted): the suite runs hundreds of
/// processes in parallel on two cores, where a ready process can wait over a
/// second for a CPU. How fast it really is, bench/ measures
/// (docs/performance.md); a bound here catches what never happens or waits
/// for a later pass.
let promptly: TimeInterval = 3

/// Polls `condition` every 20 ms until it holds or `seconds` pass: for what
/// another process does in its own time (a daemon, the system service).
func eventually(within seconds: Double, _ condition: () throws -> Bool) rethrows -> Bool {
    let deadline = Date().addingTimeInterval(seconds)
    while Date() < deadline {
        if try condition() { return true }
        Thread.sleep(forTimeInterval: 0.02)
    }
    return try condition()
}

extension RetimeProcess {
    /// The ended sessions `log --json` lists.
    func loggedSessions() throws -> [[String: Any]] {
        try run("log", "--json").json["sessions"] as? [[String: Any]] ?? []
    }
}
