import Foundation

/// A bus daemon of a test's own (`dbus-daemon`, Debian's `dbus`), never the
/// machine's: a session-like or system-like bus listening in a temporary
/// folder, open to every connection of this user, stopped by `stop()`.
public final class PrivateBus: @unchecked Sendable {
    public let address: String
    public let directory: URL
    private let process: Process

    /// Whether `dbus-daemon` is installed (`.ci/run` installs it).
    public static var installed: Bool { FileManager.default.isExecutableFile(atPath: "/usr/bin/dbus-daemon") }

    /// A bus listening in a folder of its own; or at `socket`, a path the
    /// test chooses, where a bus started later listens again (a bus's
    /// restart, as `systemctl --user restart dbus` does it).
    public init(type: String = "session", socket: String? = nil) throws {
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("retime-bus-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let configuration = """
        <!DOCTYPE busconfig PUBLIC "-//freedesktop//DTD D-Bus Bus Configuration 1.0//EN"
         "http://www.freedesktop.org/standards/dbus/1.0/busconfig.dtd">
        <busconfig>
          <type>\(type)</type>
          <listen>\(socket.map { "unix:path=" + $0 } ?? "unix:dir=" + directory.path)</listen>
          <auth>EXTERNAL</auth>
          <policy context="default">
            <allow user="*"/>
            <allow own="*"/>
            <allow send_destination="*" eavesdrop="true"/>
            <allow eavesdrop="true"/>
          </policy>
        </busconfig>
        """
        let file = directory.appendingPathComponent("bus.conf")
        try configuration.write(to: file, atomically: true, encoding: .utf8)
        process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/dbus-daemon")
        process.arguments = ["--config-file=\(file.path)", "--nofork", "--print-address=1"]
        let out = Pipe()
        process.standardOutput = out
        process.standardError = FileHandle.nullDevice
        try process.run()
        // The address is its first line, printed once it listens.
        var line = Data()
        while let byte = try out.fileHandleForReading.read(upToCount: 1), !byte.isEmpty, byte != Data("\n".utf8) { line.append(byte) }
        address = String(decoding: line, as: UTF8.self)
        guard !address.isEmpty else { throw CocoaError(.fileReadUnknown, userInfo: [NSLocalizedDescriptionKey: "dbus-daemon printed no address"]) }
    }

    public func stop() {
        if process.isRunning {
            // KILL: a test harness's blocked TERM is inherited, and dbus-daemon then ignores it.
            kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
        }
        try? FileManager.default.removeItem(at: directory)
    }

    deinit { stop() }
}
