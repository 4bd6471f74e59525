#if canImport(Glibc)
import Glibc
#endif
import Foundation
import Testing

/// `system uninstall` after the service stopped with blocks held (as
/// `systemctl disable --now` leaves them: a stop must not open a gap), in a
/// network namespace of its own so its firewall is the sandbox's.
@Suite("system uninstall leaves nothing up", .enabled(if: NetworkSandbox.available, "needs root, setpriv, unshare, ip, nft and python3"))
struct SystemUninstallEndToEndTests {
    @Test("no hosts block and no firewall table are left, the blocks are released for good, and the service's next start holds nothing")
    func nothingLeft() throws {
        let sandbox = try NetworkSandbox()
        defer { sandbox.stop() }
        let system = try SystemServiceHarness()
        let service = try FirewallLayerEndToEndTests.service(system, in: sandbox, names: "resolver")
        let user = FirewallLayerEndToEndTests.user(system, in: sandbox)
        #expect(try user.run("group", "create", "work", "--block", "blocked.test").status == 0)
        let start = try user.run("start", "work", "--for", "30m")
        #expect(start.status == 0, "\(start.out) \(start.err)")
        system.stop(service)
        #expect(try sandbox.table() != nil, "a stopped service leaves its layers up")
        #expect(try sandbox.connect("10.0.0.2", uid: 65_534) == "ECONNREFUSED")

        var root = system.rootClient()
        root.launcher = sandbox.launcher
        let uninstall = try root.run(["system", "uninstall", "--state-dir", system.state], withDataDir: false)
        #expect(uninstall.status == 0 && uninstall.out.contains("Lifted 1 block"), "\(uninstall.out) \(uninstall.err)")
        #expect(try sandbox.table() == nil, "no firewall table is left")
        #expect(try sandbox.run(["nft", "list", "table", "inet", "retime_names"]).status != 0, "no name layer table is left")
        #expect(!(try String(contentsOfFile: sandbox.hosts, encoding: .utf8)).contains("blocked.test"), "no hosts block is left")
        #expect(try sandbox.connect("10.0.0.2", uid: 65_534) == "connected")

        // Installed again, the service does not bring the old block back.
        let again = try FirewallLayerEndToEndTests.service(system, in: sandbox)
        defer { system.stop(again) }
        _ = try user.run("status")
        #expect(try sandbox.connect("10.0.0.2", uid: 65_534) == "connected")
    }
}
