import Foundation
import Testing

/// The hosts shield is for users who may write the hosts file. A user who
/// may not is told so where it matters, and pointed to the system service
/// instead: by `start` (which fails), and by `doctor` before any start.
@Suite("The hosts shield for a user who may not write the hosts file", .enabled(if: SystemServiceHarness.available, "needs root and setpriv"))
struct HostsShieldAccessTests {
    @Test("start fails saying the user cannot write the hosts file, pointing to the system service; doctor reports it")
    func notPermitted() throws {
        // root's directory and file, as /etc and /etc/hosts are.
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("retime-etc-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o755])
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let hosts = directory + "/hosts"
        #expect(FileManager.default.createFile(atPath: hosts, contents: Data(SystemServiceHarness.original.utf8), attributes: [.posixPermissions: 0o644]))
        let user = try SystemServiceHarness().client()

        #expect(try user.run("group", "create", "focus", "--block", "example.com").status == 0)
        let recorded = try user.run("start", "--for", "5m")
        #expect(recorded.prose.contains("nothing is blocked (to block, install the system service: 'sudo retime system install')"), "\(recorded.out)")
        #expect(try user.run("stop").status == 0)
        #expect(try user.run("config", "set", "shield", "hosts").status == 0)
        #expect(try user.run("config", "set", "shield.hostsFile", hosts).status == 0)

        let start = try user.run("start", "--for", "5m", "--json")
        #expect(start.status == 4 && start.errorCode == "shield.notPermitted", "\(start.err)")
        #expect(start.err.contains("retime: error: the shield cannot block here: you cannot write the hosts file \(hosts)"), "\(start.err)")
        #expect(start.err.contains("hint: the system service blocks for users who may not: 'sudo retime system install'"), "\(start.err)")
        #expect(try user.run("status", "--json").json["active"] as? Bool == false, "no session is left behind")
        #expect(try String(contentsOfFile: hosts, encoding: .utf8) == SystemServiceHarness.original)

        let doctor = try user.run("doctor", "--json")
        #expect(doctor.status == 4, "doctor does not say all is well: \(doctor.out)")
        let shield = (doctor.json["checks"] as? [[String: String]] ?? []).first { $0["name"] == "shield" }
        #expect(shield?["status"] == "error", "\(doctor.out)")
        #expect(shield?["detail"]?.contains("the hosts shield cannot write its hosts file \(hosts)") == true
                && shield?["detail"]?.contains("'sudo retime system install'") == true, "\(doctor.out)")

        // root may write it: the same configuration is fine for root.
        var root = RetimeProcess()
        root.environment["RETIME_SHIELD_SOCKET"] = user.environment["RETIME_SHIELD_SOCKET"]
        #expect(try root.run("config", "set", "shield", "hosts").status == 0)
        #expect(try root.run("config", "set", "shield.hostsFile", hosts).status == 0)
        let fine = (try root.run("doctor", "--json").json["checks"] as? [[String: String]] ?? []).first { $0["name"] == "shield" }
        #expect(fine?["status"] == "ok" && fine?["detail"] == "the hosts shield can write \(hosts)", "\(String(describing: fine))")
    }
}
