#if canImport(Glibc)
import Glibc
#endif
import Foundation
import Testing

/// A system service of a test's own: run as root on a temporary socket,
/// state directory and hosts file (never /etc/hosts or /run/retime), with
/// clients run as unprivileged users through `setpriv`.
struct SystemServiceHarness {
    /// Whether this process may run the service and drop to other users.
    static let available = geteuid() == 0 && FileManager.default.isExecutableFile(atPath: "/usr/bin/setpriv")

    /// Whether this process may make a mount and a time namespace, to look
    /// like another boot to a service started in them.
    static let canFakeReboot: Bool = {
        guard available, FileManager.default.isExecutableFile(atPath: "/usr/bin/unshare") else { return false }
        let probe = Process()
        probe.executableURL = URL(fileURLWithPath: "/usr/bin/unshare")
        probe.arguments = ["--mount", "--propagation", "private", "--time", "--boottime", "0", "--fork", "/bin/true"]
        guard (try? probe.run()) != nil else { return false }
        probe.waitUntilExit()
        return probe.terminationStatus == 0
    }()

    let root: String
    var socket: String { root + "/run/shield.sock" }
    var state: String { root + "/state" }
    var hosts: String { root + "/hosts" }
    static let original = "127.0.0.1 localhost\n::1 localhost\n"

    init() throws {
        root = FileManager.default.temporaryDirectory.appendingPathComponent("retime-system-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: root, withIntermediateDirectories: true)
        #expect(FileManager.default.createFile(atPath: hosts, contents: Data(Self.original.utf8)))
    }

    /// Starts `retime system run` and waits until it answers; `launcher`
    /// runs it inside something (a namespace that looks like another boot,
    /// or a network of its own). The firewall and app layers are off, and
    /// names blocked by the hosts file, unless `layers` says otherwise:
    /// outside a network namespace of its own a test must never touch the
    /// host's firewall (which the name layer's redirect is part of).
    func start(launcher: [String] = [], environment: [String: String] = [:], hostsFile: String? = nil,
               layers: [String] = ["--firewall", "off", "--apps", "off", "--names", "hosts"], keepingSocket: Bool = false) throws -> RetimeProcess.Running {
        var process = RetimeProcess()
        process.launcher = launcher
        // A socket left by a service stopped before must not pass for this
        // one (unless the test is about clients finding it, as during a restart).
        if !keepingSocket { try? FileManager.default.removeItem(atPath: socket) }
        process.environment.merge(environment) { _, given in given }
        let service = try process.start(["system", "run", "--socket", socket, "--state-dir", state, "--hosts-file", hostsFile ?? hosts] + layers,
                                        withDataDir: false)
        let deadline = Date().addingTimeInterval(15)
        while Date() < deadline, service.process.isRunning, !FileManager.default.fileExists(atPath: socket) {
            Thread.sleep(forTimeInterval: 0.02)
        }
        #expect(service.process.isRunning, "the service came up")
        return service
    }

    /// Signals the service, and the processes it runs inside (`unshare`
    /// ignores TERM while it waits for its child: the child is signalled).
    func stop(_ service: RetimeProcess.Running, signal number: Int32 = SIGTERM) {
        var pids = [service.process.processIdentifier]
        while let last = pids.last,
              let children = try? String(contentsOfFile: "/proc/\(last)/task/\(last)/children", encoding: .utf8),
              let child = children.split(separator: " ").first.flatMap({ Int32($0) }) {
            pids.append(child)
        }
        for pid in pids.reversed() { kill(pid, number) }
        service.process.waitUntilExit()
    }

    /// A client running retime as `uid`, with a data directory of its own
    /// that it owns, asking this service.
    func client(uid: UInt32 = 65_534) -> RetimeProcess {
        var client = RetimeProcess()
        // Its data directory is its own, as the user's is.
        _ = chown(client.dataDirectory, uid, uid)
        client.launcher = ["/usr/bin/setpriv", "--reuid=\(uid)", "--regid=\(uid)", "--clear-groups"]
        client.environment["RETIME_SHIELD_SOCKET"] = socket
        return client
    }

    /// root, asking this service.
    func rootClient() -> RetimeProcess {
        var client = RetimeProcess()
        client.environment["RETIME_SHIELD_SOCKET"] = socket
        return client
    }

    /// The domains the hosts file blocks now.
    var blocked: [String] {
        let text = (try? String(contentsOfFile: hosts, encoding: .utf8)) ?? ""
        return text.split(separator: "\n").filter { $0.hasPrefix("0.0.0.0 ") && !$0.hasPrefix("0.0.0.0 www.") }.map { String($0.dropFirst(8)) }
    }
}
