#if canImport(Glibc)
import Glibc
#endif
import Foundation

/// One real `syncthing` process for a test: a home of its own (keys,
/// config, database, log), the sync protocol and the REST API on
/// 127.0.0.1 ports picked free, and nothing that reaches past this machine
/// (no global or local discovery, relays, NAT, STUN, usage or crash
/// reports, upgrades, browser). `SyncthingPair` makes two and shares a
/// folder between them.
final class SyncthingInstance: @unchecked Sendable {
    /// Debian's package (`.ci/run` installs it).
    static let executable = "/usr/bin/syncthing"
    static var available: Bool { FileManager.default.isExecutableFile(atPath: executable) }

    let name: String
    let home: String
    /// Syncthing's own id (`XXXXXXX-XXXXXXX-...`), from its generated certificate.
    let deviceID: String
    let apiKey: String
    private(set) var guiPort: UInt16 = 0
    private(set) var listenPort: UInt16 = 0
    /// The config version this Syncthing writes (kept when we rewrite it, so
    /// another release reads our file as its own).
    private let configVersion: String

    /// A shell that runs Syncthing and ends it when its stdin closes: when
    /// the test process dies without stopping it (a trap ends the whole
    /// test run), the kernel closes our end and Syncthing goes too.
    private var supervisor: Process?
    private var lifeline: Pipe?
    private(set) var pid: pid_t = 0

    var api: LoopbackHTTP { LoopbackHTTP(port: guiPort, apiKey: apiKey) }
    var logFile: String { home + "/syncthing.log" }

    /// Generates keys and a config in `home` (`syncthing generate`).
    init(name: String, home: String) throws {
        self.name = name
        self.home = home
        apiKey = "retime-test-" + UUID().uuidString.lowercased()
        try FileManager.default.createDirectory(atPath: home, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        let generate = Process()
        generate.executableURL = URL(fileURLWithPath: Self.executable)
        generate.arguments = ["generate", "--home=\(home)", "--no-default-folder", "--skip-port-probing"]
        generate.environment = Self.environment(home: home)
        let output = Pipe()
        generate.standardOutput = output
        generate.standardError = output
        generate.standardInput = FileHandle.nullDevice
        try generate.run()
        let printed = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        generate.waitUntilExit()
        let config = (try? String(contentsOfFile: home + "/config.xml", encoding: .utf8)) ?? ""
        guard generate.terminationStatus == 0,
              let id = Self.firstMatch(#"<device id="([A-Z0-9-]{63})""#, in: config),
              let version = Self.firstMatch(#"<configuration version="([0-9]+)""#, in: config) else {
            throw LoopbackHTTP.Failure(description: "syncthing generate failed (\(generate.terminationStatus)): \(printed)")
        }
        deviceID = id
        configVersion = version
    }

    /// Syncthing's environment: its own HOME (nothing in the user's), one
    /// process (`STMONITORED` says "you are the monitor's child": without
    /// it Syncthing runs a monitor whose child outlives a kill of the
    /// monitor), no restarts, no upgrades.
    static func environment(home: String) -> [String: String] {
        var environment = ProcessInfo.processInfo.environment
        environment["HOME"] = home
        environment["STMONITORED"] = "1"
        environment["STNORESTART"] = "1"
        environment["STNOUPGRADE"] = "1"
        environment["STNODEFAULTFOLDER"] = "1"
        environment["STNOBROWSER"] = "1"
        environment.removeValue(forKey: "STGUIADDRESS")
        environment.removeValue(forKey: "STGUIAPIKEY")
        return environment
    }

    /// Picks free ports on 127.0.0.1 for the REST API and the sync protocol.
    func pickPorts() throws {
        guiPort = try LoopbackHTTP.freePort()
        listenPort = try LoopbackHTTP.freePort()
    }

    /// Writes the whole config: this device on its ports, its peers at
    /// theirs when it `dials` them (else it only listens for them), and the
    /// folders.
    func configure(peers: [SyncthingInstance], folders: [SharedFolder], dials: Bool = true) throws {
        let everyone = [self] + peers
        let devices = everyone.map { device in
            """
                <device id="\(device.deviceID)" name="\(device.name)" compression="metadata" introducer="false" skipIntroductionRemovals="false" introducedBy="">
                    <address>\(device === self || !dials ? "dynamic" : "tcp://127.0.0.1:\(device.listenPort)")</address>
                    <paused>false</paused>
                    <autoAcceptFolders>false</autoAcceptFolders>
                </device>
            """
        }.joined(separator: "\n")
        let folderElements = folders.map { folder in
            let members = everyone.map { "        <device id=\"\($0.deviceID)\" introducedBy=\"\"></device>" }.joined(separator: "\n")
            let path = folder.paths[ObjectIdentifier(self)] ?? ""
            return """
                <folder id="\(folder.id)" label="\(folder.id)" path="\(Self.escaped(path))" type="sendreceive" rescanIntervalS="\(folder.rescanIntervalSeconds)" fsWatcherEnabled="true" fsWatcherDelayS="\(folder.watcherDelaySeconds)" ignorePerms="false" autoNormalize="true">
                    <filesystemType>basic</filesystemType>
            \(members)
                    <minDiskFree unit="%">0</minDiskFree>
                    <order>random</order>
                    <maxConflicts>10</maxConflicts>
                    <markerName>.stfolder</markerName>
                    <paused>false</paused>
                </folder>
            """
        }.joined(separator: "\n")
        let config = """
        <configuration version="\(configVersion)">
        \(folderElements)
        \(devices)
            <gui enabled="true" tls="false" debugging="false">
                <address>127.0.0.1:\(guiPort)</address>
                <apikey>\(apiKey)</apikey>
                <theme>default</theme>
            </gui>
            <options>
                <listenAddress>tcp://127.0.0.1:\(listenPort)</listenAddress>
                <globalAnnounceEnabled>false</globalAnnounceEnabled>
                <localAnnounceEnabled>false</localAnnounceEnabled>
                <relaysEnabled>false</relaysEnabled>
                <natEnabled>false</natEnabled>
                <stunKeepaliveStartS>0</stunKeepaliveStartS>
                <stunKeepaliveMinS>0</stunKeepaliveMinS>
                <urAccepted>-1</urAccepted>
                <urSeen>3</urSeen>
                <crashReportingEnabled>false</crashReportingEnabled>
                <autoUpgradeIntervalH>0</autoUpgradeIntervalH>
                <startBrowser>false</startBrowser>
                <announceLANAddresses>false</announceLANAddresses>
                <reconnectionIntervalS>1</reconnectionIntervalS>
                <setLowPriority>false</setLowPriority>
                <minHomeDiskFree unit="%">0</minHomeDiskFree>
            </options>
        </configuration>

        """
        try config.write(toFile: home + "/config.xml", atomically: true, encoding: .utf8)
    }

    /// Starts Syncthing under its supervisor; `waitUntilAnswering` waits
    /// for its REST API. `leftovers` is removed once Syncthing has exited
    /// after this process died without stopping it.
    func launch(leftovers: String) throws {
        let lifeline = Pipe()
        let supervisor = Process()
        supervisor.executableURL = URL(fileURLWithPath: "/bin/sh")
        // `cat` returns when our end of the pipe closes (stop(), or this
        // process gone); Syncthing is then asked to stop, and waited for.
        // If our process is gone (the supervisor's parent is no longer
        // the one that started it), nobody else will clean up.
        supervisor.arguments = ["-c", """
            "$0" serve --home="$1" --no-browser --logflags=7 </dev/null >>"$1/syncthing.log" 2>&1 &
            child=$!
            echo "$child"
            parent=$PPID
            cat >/dev/null
            kill -TERM "$child" 2>/dev/null
            wait "$child"
            if [ "$(cut -d' ' -f4 /proc/$$/stat)" != "$parent" ]; then rm -rf "$2"; rmdir "$(dirname "$2")" 2>/dev/null; fi
            exit 0
            """, Self.executable, home, leftovers]
        supervisor.environment = Self.environment(home: home)
        let output = Pipe()
        supervisor.standardOutput = output
        supervisor.standardError = FileHandle.nullDevice
        supervisor.standardInput = lifeline
        try supervisor.run()
        self.supervisor = supervisor
        self.lifeline = lifeline
        let line = String(decoding: output.fileHandleForReading.availableLine(), as: UTF8.self)
        pid = pid_t(line.trimmingCharacters(in: .whitespacesAndNewlines)) ?? 0
    }

    /// Waits until the REST API answers. A port taken by another process
    /// meanwhile shows as an early exit: the caller configures fresh ports
    /// and tries again.
    func waitUntilAnswering(within seconds: TimeInterval = 60) throws {
        let deadline = Date().addingTimeInterval(seconds)
        while Date() < deadline {
            if pid <= 0 || !isRunning { break }
            if let (status, _) = try? api.get("/rest/system/ping"), status == 200 { return }
            Thread.sleep(forTimeInterval: 0.05)
        }
        let why = isRunning ? "its REST API did not answer within \(Int(seconds)) s" : "it exited"
        throw LoopbackHTTP.Failure(description: "syncthing \(name) did not start: \(why)\n\(logTail())")
    }

    /// Whether the Syncthing process is alive (not a zombie).
    var isRunning: Bool {
        guard pid > 0, let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8) else { return false }
        return !stat.contains(") Z ")
    }

    /// Stops Syncthing (TERM, then KILL after 15 s) and its supervisor;
    /// idempotent.
    func stop() {
        guard let supervisor else { return }
        try? lifeline?.fileHandleForWriting.close()
        let deadline = Date().addingTimeInterval(15)
        while supervisor.isRunning, Date() < deadline { Thread.sleep(forTimeInterval: 0.02) }
        if supervisor.isRunning {
            if pid > 0 { kill(pid, SIGKILL) }
            kill(supervisor.processIdentifier, SIGKILL)
            supervisor.waitUntilExit()
        }
        self.supervisor = nil
        self.lifeline = nil
    }

    /// The last lines of Syncthing's log, for a failure's message.
    func logTail(lines: Int = 30) -> String {
        let text = (try? String(contentsOfFile: logFile, encoding: .utf8)) ?? "(no log)"
        return "--- \(name)'s log ---\n" + text.split(separator: "\n").suffix(lines).joined(separator: "\n")
    }

    private static func firstMatch(_ pattern: String, in text: String) -> String? {
        guard let regex = try? NSRegularExpression(pattern: pattern),
              let match = regex.firstMatch(in: text, range: NSRange(text.startIndex..., in: text)),
              let range = Range(match.range(at: 1), in: text) else { return nil }
        return String(text[range])
    }

    private static func escaped(_ text: String) -> String {
        text.replacingOccurrences(of: "&", with: "&amp;").replacingOccurrences(of: "\"", with: "&quot;")
            .replacingOccurrences(of: "<", with: "&lt;").replacingOccurrences(of: ">", with: "&gt;")
    }
}

/// A folder shared by every instance of a pair, at a path of each one's own.
struct SharedFolder {
    let id: String
    /// Each instance's copy of the folder, by instance.
    var paths: [ObjectIdentifier: String]
    /// Seconds between full rescans: a safety net under the file watcher.
    var rescanIntervalSeconds = 5
    /// How long the watcher gathers changes before it scans them (Syncthing
    /// scans a change 0.5-1.5 times this after it happens).
    var watcherDelaySeconds = SharedFolder.watcherDelay

    static let watcherDelay = 1
}

private extension FileHandle {
    /// Reads up to and including the first newline (or to end of file).
    func availableLine() -> Data {
        var line = Data()
        while true {
            let byte = readData(ofLength: 1)
            if byte.isEmpty || byte == Data([0x0A]) { return line }
            line.append(byte)
        }
    }
}
