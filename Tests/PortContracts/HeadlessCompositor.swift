import Dispatch
import Foundation

/// A Wayland compositor of a test's own, headless (no screen, no input
/// device), listening in a temporary runtime folder: never the machine's
/// display. Input comes from `press()` (a key on wtype's virtual keyboard;
/// KDE's `simulate_user_activity` where KWin offers no such keyboard), so
/// the compositor's "resumed" is its own. Stopped by `stop()`.
public final class HeadlessCompositor: @unchecked Sendable {
    /// The compositors Debian offers that a test can start headless.
    public enum Kind: String, Sendable, CaseIterable, CustomStringConvertible {
        /// sway 1.7 (wlroots 0.15): KDE's `org_kde_kwin_idle`.
        case sway
        /// KWin 5.27 (`kwin_wayland --virtual`): `ext_idle_notifier_v1` and
        /// `org_kde_kwin_idle`; the only compositor here with the former.
        case kwin
        /// weston 10 (headless backend): neither idle protocol, no seat.
        case weston

        var executable: String {
            switch self {
            case .sway: "/usr/bin/sway"
            case .kwin: "/usr/bin/kwin_wayland"
            case .weston: "/usr/bin/weston"
            }
        }

        public var description: String { rawValue }
    }

    public let kind: Kind
    public let runtimeDirectory: URL
    /// The socket's name in `runtimeDirectory` (sway picks its own).
    public private(set) var display = "wayland-retime"
    private let process: Process
    private let log: URL

    /// What a client needs to find it.
    public var environment: [String: String] { ["XDG_RUNTIME_DIR": runtimeDirectory.path, "WAYLAND_DISPLAY": display] }

    /// Whether `kind` and its input tool are installed (`.ci/run` installs them).
    public static func installed(_ kind: Kind) -> Bool {
        let input = switch kind {
        case .sway: "/usr/bin/wtype"
        case .kwin, .weston: "/usr/bin/python3"
        }
        return FileManager.default.isExecutableFile(atPath: kind.executable) && FileManager.default.isExecutableFile(atPath: input)
    }

    /// Whether a test must run even where `kind` is missing, and so fail:
    /// in CI (`$CI` set), a compositor not found is a broken set-up, not a skip.
    public static func required(_ kind: Kind) -> Bool {
        installed(kind) || ProcessInfo.processInfo.environment["CI"].map { !$0.isEmpty } ?? false
    }

    /// A runtime folder for a compositor started later in it (`init(_:in:)`):
    /// what a user daemon started with the login has before the desktop.
    public static func runtimeFolder() throws -> URL {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("retime-wayland-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        return folder
    }

    /// Starts `kind` in `folder` (a fresh one when nil), and returns once
    /// its socket answers.
    public init(_ kind: Kind, in folder: URL? = nil) throws {
        self.kind = kind
        guard Self.installed(kind) else { throw Failure("\(kind.executable) or its input tool is not installed (.ci/run installs them)") }
        runtimeDirectory = try folder ?? Self.runtimeFolder()
        log = runtimeDirectory.appendingPathComponent("compositor.log")
        _ = FileManager.default.createFile(atPath: log.path, contents: nil)
        // sway refuses to run as root (it cannot drop it), so as root the
        // compositor runs as nobody, in a runtime folder of nobody's (root's
        // clients may still connect).
        let asRoot = getuid() == 0
        if asRoot { chown(runtimeDirectory.path, 65_534, 65_534) }
        var executable = kind.executable
        if kind == .kwin {
            // Debian gives kwin_wayland a file capability (cap_sys_resource),
            // which a container's bounding set refuses to exec: a plain copy has none.
            let copy = runtimeDirectory.appendingPathComponent("kwin_wayland").path
            try FileManager.default.copyItem(atPath: kind.executable, toPath: copy)
            executable = copy
        }
        var environment = ["PATH": "/usr/bin:/bin", "HOME": runtimeDirectory.path, "XDG_RUNTIME_DIR": runtimeDirectory.path,
                           "XDG_CONFIG_HOME": runtimeDirectory.appendingPathComponent("config").path]
        var arguments: [String]
        switch kind {
        case .sway:
            let configuration = runtimeDirectory.appendingPathComponent("sway.conf")
            try "output * resolution 640x480\n".write(to: configuration, atomically: true, encoding: .utf8)
            environment.merge(["WLR_BACKENDS": "headless", "WLR_LIBINPUT_NO_DEVICES": "1", "WLR_RENDERER": "pixman"]) { $1 }
            arguments = ["-c", configuration.path]
        case .kwin:
            environment.merge(["QT_QPA_PLATFORM": "offscreen"]) { $1 }
            arguments = ["--virtual", "--no-lockscreen", "--no-global-shortcuts", "--socket", display]
        case .weston:
            arguments = ["--backend=headless-backend.so", "--socket=\(display)"]
        }
        process = Process()
        if asRoot {
            process.executableURL = URL(fileURLWithPath: "/usr/bin/setpriv")
            arguments = ["--reuid=65534", "--regid=65534", "--clear-groups", executable] + arguments
        } else {
            process.executableURL = URL(fileURLWithPath: executable)
        }
        process.arguments = arguments
        process.environment = environment
        process.currentDirectoryURL = runtimeDirectory
        let output = try FileHandle(forWritingTo: log)
        process.standardOutput = output
        process.standardError = output
        process.standardInput = FileHandle.nullDevice
        try process.run()
        // Ready once its socket is there and answers (a connect, not a guess at a delay).
        let deadline = Date().addingTimeInterval(60)
        while true {
            if let socket = Self.socketNames(in: runtimeDirectory).first(where: { Self.answers(runtimeDirectory.appendingPathComponent($0).path) }) {
                display = socket
                break
            }
            guard process.isRunning, Date() < deadline else {
                let said = (try? String(contentsOf: log, encoding: .utf8)) ?? ""
                stop()
                throw Failure("\(kind) did not come up: \(said.suffix(1_500))")
            }
            Thread.sleep(forTimeInterval: 0.05)
        }
    }

    /// Input as the user's: a key pressed and released on a virtual
    /// keyboard (wtype) where the compositor offers one (sway); KWin 5.27
    /// offers none, and gets KDE's `simulate_user_activity`, which it hands
    /// to every idle detector as input does (Helpers/wayland_activity.py).
    /// Returns once the tool has had the compositor's answer.
    public func press() throws {
        let tool = Process()
        switch kind {
        case .sway:
            tool.executableURL = URL(fileURLWithPath: "/usr/bin/wtype")
            tool.arguments = ["-k", "space"]
        case .kwin, .weston:
            tool.executableURL = URL(fileURLWithPath: "/usr/bin/python3")
            tool.arguments = [URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Helpers/wayland_activity.py").path]
        }
        tool.environment = environment
        let errors = Pipe()
        tool.standardError = errors
        tool.standardOutput = FileHandle.nullDevice
        try tool.run()
        tool.waitUntilExit()
        guard tool.terminationStatus == 0 else {
            let said = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
            throw Failure("\(tool.executableURL?.lastPathComponent ?? "input") failed (\(tool.terminationStatus)): \(said)")
        }
    }

    /// `init` off the cooperative pool: starting a compositor waits
    /// seconds, and a blocked pool thread (two on two cores) starves every
    /// other test of the parallel suite.
    public static func start(_ kind: Kind, in runtimeDirectory: URL? = nil) async throws -> HeadlessCompositor {
        try await offPool { try HeadlessCompositor(kind, in: runtimeDirectory) }
    }

    /// `press()` off the cooperative pool (it waits for a process).
    public func pressing() async throws {
        try await Self.offPool { try self.press() }
    }

    private static func offPool<T: Sendable>(_ work: @escaping @Sendable () throws -> T) async throws -> T {
        try await withCheckedThrowingContinuation { continuation in
            DispatchQueue.global().async { continuation.resume(with: Result { try work() }) }
        }
    }

    /// The sockets a compositor may have: `wayland-N`, not its lock file
    /// (the one that answers is the compositor's: a test may leave a dead one).
    private static func socketNames(in directory: URL) -> [String] {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: directory.path)) ?? []
        return names.filter { $0.hasPrefix("wayland-") && !$0.hasSuffix(".lock") }
    }

    /// What the compositor printed, for a failed check.
    public var output: String { ((try? String(contentsOf: log, encoding: .utf8)) ?? "").suffix(2_000).description }

    public func stop() {
        if process.isRunning {
            // KILL: a test harness's blocked TERM is inherited, and the compositor then ignores it.
            kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
        }
        try? FileManager.default.removeItem(at: runtimeDirectory)
    }

    deinit { stop() }

    private static func answers(_ path: String) -> Bool {
        let fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { return false }
        defer { close(fd) }
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        withUnsafeMutableBytes(of: &address.sun_path) { raw in
            let bytes = Array(path.utf8.prefix(raw.count - 1))
            raw.copyBytes(from: bytes)
            raw[bytes.count] = 0
        }
        return withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) == 0 }
        }
    }

    public struct Failure: Error, CustomStringConvertible {
        public let description: String
        public init(_ description: String) { self.description = description }
    }
}
