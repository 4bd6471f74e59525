#if canImport(Glibc)
import Glibc
#endif
import Foundation
import Testing

/// A network and mount namespace of a test's own, where the firewall layer
/// may do what it does to a real machine without touching this one: its
/// own loopback with the addresses of made-up sites (10.0.0.2 and fd00::2
/// for `blocked.test`, 10.0.0.3 for `open.test`, 10.0.0.4 spare), a
/// listener on port 443 of each; `plain.test` at 10.0.0.5, which serves
/// port 80 only; 1.1.1.1 listening on 443, standing for a public
/// DNS-over-HTTPS service; a DNS responder at 127.0.0.1 that
/// `/etc/resolv.conf` names (unless `dns` is false: then no DNS answers),
/// and `/etc/hosts` bound to a file of the test (or, with `overlayEtc`, the
/// whole of `/etc` seen through an overlay whose changes land in the test's
/// directory: files there are replaced by rename and watched as on a real
/// machine). Commands run inside it through `nsenter`.
final class NetworkSandbox: @unchecked Sendable {
    static let python = "/usr/bin/python3"
    static let helpers = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Helpers").path

    /// Whether this machine can make one: root, and the tools.
    static let available: Bool = SystemServiceHarness.available
        && ["/usr/bin/unshare", "/usr/bin/nsenter", python].allSatisfy(FileManager.default.isExecutableFile(atPath:))
        && ["/usr/sbin/ip", "/sbin/ip", "/usr/bin/ip"].contains(where: FileManager.default.isExecutableFile(atPath:))
        && ["/usr/sbin/nft", "/sbin/nft", "/usr/bin/nft"].contains(where: FileManager.default.isExecutableFile(atPath:))

    let directory: String
    /// The sandbox's hosts file, as seen from outside (read it; write it
    /// only without `overlayEtc`).
    let hosts: String
    var records: String { directory + "/records.json" }
    private let holder: Process
    private var helpers: [Process] = []
    /// The namespace holder's pid.
    let pid: Int32
    /// Runs a command inside.
    var launcher: [String] { ["/usr/bin/nsenter", "-t", "\(pid)", "-n", "-m"] }

    static let defaultRecords = ["blocked.test": ["10.0.0.2", "fd00::2"], "www.blocked.test": ["10.0.0.2"], "open.test": ["10.0.0.3"],
                                 "plain.test": ["10.0.0.5"]]
    /// The stand-in for a DNS-over-HTTPS service (Cloudflare's address).
    static let dnsOverHTTPS = "1.1.1.1"

    /// `ttl`: the time-to-live of the DNS answers; `dns`: whether a DNS
    /// server answers at all; `listener`: whether the sites' ports accept (a
    /// test that serves them itself says no); `overlayEtc`: an overlay over
    /// `/etc` rather than bind mounts over two of its files (a bind-mounted
    /// file is written in place, and a program watching `/etc` for a new
    /// hosts file, as browsers do, never hears of it).
    init(records: [String: [String]] = NetworkSandbox.defaultRecords, ttl: Int = 300, dns: Bool = true, listener: Bool = true,
         overlayEtc: Bool = false) throws {
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("retime-net-\(UUID().uuidString)").path
        let etc = overlayEtc ? directory + "/etc" : directory
        for path in overlayEtc ? [etc, directory + "/etc-work"] : [directory] {
            try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o755])
        }
        hosts = etc + "/hosts"
        try Data(SystemServiceHarness.original.utf8).write(to: URL(fileURLWithPath: hosts))
        try Data("nameserver 127.0.0.1\n".utf8).write(to: URL(fileURLWithPath: etc + "/resolv.conf"))
        let mounts = overlayEtc
            ? "mount -t overlay retime-etc -o lowerdir=/etc,upperdir=\(etc),workdir=\(directory)/etc-work /etc"
            : "mount --bind \(etc)/resolv.conf /etc/resolv.conf; mount --bind \(hosts) /etc/hosts"
        let ready = directory + "/ready"
        let script = """
            set -e
            ip link set lo up
            for a in 10.0.0.2 10.0.0.3 10.0.0.4 10.0.0.5 \(Self.dnsOverHTTPS); do ip addr add $a/32 dev lo; done
            ip addr add fd00::2/128 dev lo nodad
            \(mounts)
            if [ -e /run/systemd/resolve/resolv.conf ]; then mount --bind \(etc)/resolv.conf /run/systemd/resolve/resolv.conf; fi
            touch \(ready)
            exec sleep 100000
            """
        holder = Process()
        holder.executableURL = URL(fileURLWithPath: "/usr/bin/unshare")
        holder.arguments = ["--net", "--mount", "--propagation", "private", "/bin/sh", "-c", script]
        try holder.run()
        pid = holder.processIdentifier
        guard eventually(within: 10, { FileManager.default.fileExists(atPath: ready) }) else { throw SandboxError("the namespace did not come up") }
        try setRecords(records)
        if dns { try startHelper(["dns_responder.py", "127.0.0.1", "53", self.records, "\(ttl)"]) }
        if listener {
            try startHelper(["tcp_listener.py", "443", "10.0.0.2", "10.0.0.3", "10.0.0.4", "fd00::2", Self.dnsOverHTTPS])
            try startHelper(["tcp_listener.py", "80", "10.0.0.5"])
        }
    }

    deinit { stop() }

    func stop() {
        for process in helpers + [holder] where process.isRunning {
            kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
        }
        helpers.removeAll()
    }

    /// What the DNS answers from the next question on.
    func setRecords(_ records: [String: [String]]) throws {
        try JSONSerialization.data(withJSONObject: records).write(to: URL(fileURLWithPath: self.records + ".tmp"))
        rename(self.records + ".tmp", self.records)
    }

    /// Starts one of Helpers/ inside, as root, and waits for its "ready";
    /// it is killed with the sandbox.
    func startHelper(_ arguments: [String]) throws {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: launcher[0])
        process.arguments = Array(launcher.dropFirst()) + [Self.python, Self.helpers + "/" + arguments[0]] + arguments.dropFirst()
        let out = Pipe()
        process.standardOutput = out
        process.standardError = FileHandle.nullDevice
        try process.run()
        helpers.append(process)
        let line = String(decoding: out.fileHandleForReading.availableData, as: UTF8.self)
        guard line.hasPrefix("ready") else { throw SandboxError("\(arguments[0]) did not start: \(line)") }
    }

    /// A command run inside, as `uid` (root when nil); its output.
    @discardableResult
    func run(_ command: [String], uid: UInt32? = nil) throws -> (status: Int32, out: String) {
        let process = try start(command, uid: uid)
        let out = String(decoding: process.1.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.0.waitUntilExit()
        return (process.0.terminationStatus, out)
    }

    /// Starts a command inside, as `uid`; its stdout.
    func start(_ command: [String], uid: UInt32? = nil) throws -> (Process, Pipe) {
        let drop = uid.map { ["/usr/bin/setpriv", "--reuid=\($0)", "--regid=\($0)", "--clear-groups"] } ?? []
        let process = Process()
        process.executableURL = URL(fileURLWithPath: launcher[0])
        process.arguments = Array(launcher.dropFirst()) + drop + command
        let out = Pipe()
        process.standardOutput = out
        process.standardError = FileHandle.nullDevice
        try process.run()
        return (process, out)
    }

    /// A TCP connection to `address` on `port` as `uid`: "connected", or
    /// the error's name (`ECONNREFUSED`, `timeout`).
    func connect(_ address: String, port: Int = 443, uid: UInt32? = nil) throws -> String {
        try run([Self.python, Self.helpers + "/tcp_client.py", address, "\(port)"], uid: uid).out.trimmingCharacters(in: .whitespacesAndNewlines)
    }

    /// A connection opened now and held: its first line says whether it
    /// connected, its second how it ended (within `seconds`).
    func holdConnection(_ address: String, uid: UInt32, seconds: Int) throws -> (Process, Pipe) {
        try start([Self.python, Self.helpers + "/tcp_client.py", address, "443", "--hold", "\(seconds)"], uid: uid)
    }

    /// The firewall table as nft lists it, or nil when there is none.
    func table() throws -> String? {
        let (status, out) = try run(["nft", "list", "table", "inet", "retime"])
        return status == 0 ? out : nil
    }
}

struct SandboxError: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}
