#if canImport(Glibc)
import Glibc
#endif
import Foundation
import Testing

/// A real browser against the system service (issue 27): Debian's Chromium,
/// headless, run as an unprivileged user in a network namespace of the
/// test's own, where the service runs with its firewall layer. Two sites
/// are served on ports 80 and 443 (TLS, from a certificate authority made
/// for the test and trusted by a managed policy): during a session the
/// blocked one must fail to load and the other load; after `stop` both
/// load. Once with Chromium's default DNS, once in secure DNS mode (DNS
/// over HTTPS only) with the DoH service at 1.1.1.1, an address browsers
/// know.
@Suite("A real browser end to end", .enabled(if: BrowserWorld.available, "needs root, nftables, iproute2, python3, openssl and chromium"))
struct BrowserEndToEndTests {
    enum DNSMode: String, CustomStringConvertible, CaseIterable, Sendable {
        case system = "default DNS", secure = "secure DNS (DNS over HTTPS at 1.1.1.1)"
        var description: String { rawValue }
    }

    static let uid: UInt32 = 65_534
    static let pages = ["http://blocked.test/", "https://blocked.test/", "http://open.test/", "https://open.test/"]

    /// What the page at `url` says when it loads.
    static func page(_ url: String) -> String {
        let parts = url.components(separatedBy: "://")
        return "loaded retime-test-page \(parts[1].dropLast()) \(parts[0])"
    }

    @Test("the blocked site fails to load during a session and the open one loads, in a browser already open and a new one; both load after stop",
          arguments: DNSMode.allCases)
    func browser(mode: DNSMode) throws {
        let sandbox = try NetworkSandbox(records: BrowserWorld.records, listener: false, overlayEtc: true)
        defer { try? FileManager.default.removeItem(atPath: sandbox.directory) } // the browsers' profiles: megabytes
        defer { sandbox.stop() }
        let world = try BrowserWorld(sandbox, secureDNS: mode == .secure)
        let system = try SystemServiceHarness()
        let service = try FirewallLayerEndToEndTests.service(system, in: sandbox)
        defer { system.stop(service) }
        let user = FirewallLayerEndToEndTests.user(system, in: sandbox, uid: Self.uid)
        #expect(try user.run("group", "create", "g", "--block", "blocked.test").status == 0)

        // A browser running before the session, its DNS cache and connections warm.
        let running = try world.browser()
        defer { running.close() }
        for url in Self.pages {
            #expect(running.send("load \(url)") == Self.page(url), "\(mode): before the session")
        }
        // secure.test is known only to the DoH service: proof of the mode.
        let viaDoH = running.send("load http://secure.test/")
        #expect(viaDoH == (mode == .secure ? Self.page("http://secure.test/") : "failed net::ERR_NAME_NOT_RESOLVED"), "\(mode)")

        let start = try user.run("start", "g", "--for", "10m")
        #expect(start.status == 0, "\(start.err)")
        let started = ContinuousClock.now
        let refused = running.send("until failed https://blocked.test/ 10", within: 30)
        let toRefused = ContinuousClock.now - started
        #expect(refused.hasPrefix("failed "), "\(mode): the blocked site stops loading in the running browser")
        #expect(running.send("load http://blocked.test/").hasPrefix("failed "), "\(mode): in the running browser")
        for url in Self.pages where url.contains("open.test") {
            #expect(running.send("load \(url)") == Self.page(url), "\(mode): the open site still loads in the running browser")
        }
        // A browser started during the session: no cache, every name looked up now.
        let fresh = try world.browser()
        for url in Self.pages {
            let result = fresh.send("load \(url)")
            if url.contains("blocked.test") {
                #expect(result.hasPrefix("failed "), "\(mode): \(url) is blocked in a new browser: \(result)")
            } else {
                let why = mode == .secure ? " (it looks every name up at the DoH service: refusing it breaks them all)" : ""
                #expect(result == Self.page(url), "\(mode): \(url) loads during the session in a new browser\(why)")
            }
        }
        fresh.close()

        #expect(try user.run("stop").status == 0)
        let stopped = ContinuousClock.now
        let loaded = running.send("until loaded https://blocked.test/ 20", within: 40)
        let toLoaded = ContinuousClock.now - stopped
        #expect(loaded.hasPrefix(Self.page("https://blocked.test/")), "\(mode): the running browser loads the site again")
        let later = try world.browser()
        defer { later.close() }
        for url in Self.pages {
            #expect(running.send("load \(url)") == Self.page(url), "\(mode): after stop, in the running browser")
            #expect(later.send("load \(url)") == Self.page(url), "\(mode): after stop, in a new browser")
        }
        print("browser, \(mode): start to the first refused load \(Self.milliseconds(toRefused)) (\(refused)); "
              + "stop to loading again \(Self.milliseconds(toLoaded)) (\(loaded))")
    }

    static func milliseconds(_ duration: Duration) -> String {
        String(format: "%.0f ms", Double(duration.components.seconds) * 1000 + Double(duration.components.attoseconds) / 1e15)
    }
}

/// What the browser test adds to a `NetworkSandbox` (made with
/// `overlayEtc`, so that Chromium hears of the service's hosts file changes
/// as on a real machine): 1.1.1.1 on its loopback (`replace`: a sandbox
/// may have it already); a link that is up with
/// an address (else Chromium believes it is offline and fails every load
/// with ERR_INTERNET_DISCONNECTED), and no IPv6 link-local one (whose
/// arrival a second later would fail loads with ERR_NETWORK_CHANGED); a
/// certificate authority and the sites' certificate; web_server.py serving
/// both sites and DoH; and Chromium's managed policies, in the sandbox's
/// /etc/chromium: trust that authority, and in secure mode
/// `DnsOverHttpsMode: secure` with a template at 1.1.1.1.
struct BrowserWorld {
    static let chromium = "/usr/bin/chromium"
    static let openssl = "/usr/bin/openssl"
    static let available: Bool = NetworkSandbox.available && FileManager.default.isExecutableFile(atPath: chromium)
        && FileManager.default.isExecutableFile(atPath: openssl)

    static let records = ["blocked.test": ["10.0.0.2"], "www.blocked.test": ["10.0.0.2"], "open.test": ["10.0.0.3"]]
    static let dohRecords = records.merging(["secure.test": ["10.0.0.3"]]) { a, _ in a }

    let sandbox: NetworkSandbox
    var directory: String { sandbox.directory }

    init(_ sandbox: NetworkSandbox, secureDNS: Bool) throws {
        self.sandbox = sandbox
        let certificate = try makeCertificate()
        var policy: [String: Any] = ["CACertificates": [certificate]]
        if secureDNS {
            policy["DnsOverHttpsMode"] = "secure"
            policy["DnsOverHttpsTemplates"] = "https://1.1.1.1/dns-query"
        }
        try JSONSerialization.data(withJSONObject: policy).write(to: URL(fileURLWithPath: directory + "/policy.json"))
        try JSONSerialization.data(withJSONObject: Self.dohRecords).write(to: URL(fileURLWithPath: directory + "/doh.json"))
        for command in [["ip", "addr", "replace", "1.1.1.1/32", "dev", "lo"],
                        ["ip", "link", "add", "retime0", "type", "veth", "peer", "name", "retime1"],
                        ["ip", "link", "set", "retime0", "addrgenmode", "none", "up"],
                        ["ip", "link", "set", "retime1", "addrgenmode", "none", "up"],
                        ["ip", "addr", "add", "192.0.2.1/24", "dev", "retime0"],
                        ["install", "-D", "-m", "0644", directory + "/policy.json", "/etc/chromium/policies/managed/retime-test.json"]] {
            let (status, _) = try sandbox.run(command)
            guard status == 0 else { throw SandboxError("\(command.joined(separator: " ")) failed") }
        }
        try sandbox.startHelper(["web_server.py", directory + "/site.pem", directory + "/site.key", directory + "/doh.json", "60",
                                 "10.0.0.2", "10.0.0.3", "1.1.1.1"])
    }

    /// Makes a certificate authority and, signed by it, the sites' and the
    /// DoH service's certificate; the authority's DER, in base64.
    private func makeCertificate() throws -> String {
        let key = ["-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes", "-days", "2"]
        for arguments in [
            ["req", "-x509"] + key + ["-subj", "/CN=retime test CA", "-keyout", "ca.key", "-out", "ca.pem",
                                      "-addext", "basicConstraints=critical,CA:TRUE", "-addext", "keyUsage=critical,keyCertSign"],
            ["req", "-x509"] + key + ["-subj", "/CN=retime test sites", "-CA", "ca.pem", "-CAkey", "ca.key",
                                      "-keyout", "site.key", "-out", "site.pem", "-addext", "basicConstraints=critical,CA:FALSE",
                                      "-addext", "subjectAltName=DNS:blocked.test,DNS:www.blocked.test,DNS:open.test,DNS:secure.test,IP:1.1.1.1"],
        ] {
            let process = Process()
            process.executableURL = URL(fileURLWithPath: Self.openssl)
            process.arguments = arguments
            process.currentDirectoryURL = URL(fileURLWithPath: directory)
            process.standardOutput = FileHandle.nullDevice
            process.standardError = FileHandle.nullDevice
            try process.run()
            process.waitUntilExit()
            guard process.terminationStatus == 0 else { throw SandboxError("openssl \(arguments[0]) failed") }
        }
        let pem = try String(contentsOfFile: directory + "/ca.pem", encoding: .utf8)
        return pem.split(separator: "\n").filter { !$0.hasPrefix("-----") }.joined()
    }

    /// A new headless Chromium inside, as the blocking user, with a profile
    /// of its own.
    func browser(uid: UInt32 = BrowserEndToEndTests.uid) throws -> Browser {
        let home = directory + "/browser-" + UUID().uuidString
        try FileManager.default.createDirectory(atPath: home, withIntermediateDirectories: false, attributes: [.posixPermissions: 0o700])
        guard chown(home, uid, uid) == 0 else { throw SandboxError("chown \(home)") }
        return try Browser(sandbox.launcher + ["/usr/bin/setpriv", "--reuid=\(uid)", "--regid=\(uid)", "--clear-groups",
                                               "/usr/bin/env", "-i", "HOME=\(home)", "PATH=/usr/bin:/bin",
                                               NetworkSandbox.python, NetworkSandbox.helpers + "/browser.py",
                                               Self.chromium, home + "/profile"])
    }
}

/// Helpers/browser.py and its Chromium: a command a line in, an answer a
/// line out, each answer awaited for a bounded time.
final class Browser {
    private let process = Process()
    private let input = Pipe(), output = Pipe()
    private var buffer: [UInt8] = []

    init(_ command: [String]) throws {
        process.executableURL = URL(fileURLWithPath: command[0])
        process.arguments = Array(command.dropFirst())
        process.standardInput = input
        process.standardOutput = output
        process.standardError = FileHandle.nullDevice
        try process.run()
        let ready = line(within: 30)
        guard ready == "ready" else {
            close()
            throw SandboxError("the browser did not start: \(ready ?? "no answer")")
        }
    }

    deinit { close() }

    /// Sends one command; its answer, or what went wrong.
    func send(_ command: String, within seconds: Double = 40) -> String {
        guard process.isRunning else { return "the browser is gone" }
        input.fileHandleForWriting.write(Data((command + "\n").utf8))
        return line(within: seconds) ?? "no answer within \(seconds) s to \(command)"
    }

    private func line(within seconds: Double) -> String? {
        let deadline = Date().addingTimeInterval(seconds)
        let fd = output.fileHandleForReading.fileDescriptor
        while true {
            if let end = buffer.firstIndex(of: 10) {
                defer { buffer.removeFirst(end + 1) }
                return String(decoding: buffer[..<end], as: UTF8.self)
            }
            let left = deadline.timeIntervalSinceNow
            guard left > 0 else { return nil }
            var ready = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
            guard poll(&ready, 1, Int32(min(left, 1) * 1000) + 1) > 0 else { continue }
            var chunk = [UInt8](repeating: 0, count: 4096)
            let count = read(fd, &chunk, chunk.count)
            guard count > 0 else { return nil }
            buffer += chunk[..<count]
        }
    }

    /// Ends the helper (which ends Chromium): end of input, then a kill if
    /// it does not go within 10 s.
    func close() {
        try? input.fileHandleForWriting.close()
        guard process.isRunning else { return }
        if !eventually(within: 10, { !process.isRunning }) { kill(process.processIdentifier, SIGKILL) }
        process.waitUntilExit()
    }
}
