#if canImport(Glibc)
import Glibc
#endif
import Foundation
import Testing

/// The default `auto` shield once the system service is installed (issue
/// 28): a block goes through the service or the command fails saying so; a
/// session never starts with nothing blocked because the service was busy,
/// stalled or restarting.
@Suite("The auto shield never degrades silently", .enabled(if: SystemServiceHarness.available, "needs root and setpriv"))
struct AutoShieldTests {
    private func doctorCheck(_ user: RetimeProcess, _ name: String) throws -> [String: Any]? {
        (try user.run("doctor", "--json").json["checks"] as? [[String: Any]])?.first { $0["name"] as? String == name }
    }

    @Test("a stalled service: start (strict or not) fails saying the service cannot be reached, exit 4, and records no session")
    func stalledService() throws {
        let system = try SystemServiceHarness()
        let service = try system.start()
        defer { system.stop(service) }
        let user = system.client()
        try user.run("group", "create", "work", "--block", "example.com")
        // Stalled as a hostile user's load once stalled it: it accepts, never answers.
        kill(service.process.processIdentifier, SIGSTOP)
        defer { kill(service.process.processIdentifier, SIGCONT) }
        for strict in [true, false] {
            let start = try user.run(["start", "work", "--for", "10m", "--json"] + (strict ? ["--strict"] : []))
            #expect(start.status == 4, "strict \(strict): \(start.out) \(start.err)")
            #expect(start.errorCode == "shield.failed" && start.err.contains("system service cannot be reached"), "\(start.err)")
        }
        let status = try user.run("status", "--json")
        #expect(status.json["session"] is NSNull, "no session was recorded: \(status.out)")
        let doctor = try doctorCheck(user, "shield")
        #expect(doctor?["status"] as? String == "error" && (doctor?["detail"] as? String ?? "").contains("installed but does not answer"),
                "\(String(describing: doctor))")
    }

    @Test("a service restarting: start waits for it and the block is held, rather than starting with nothing blocked")
    func restartingService() throws {
        let system = try SystemServiceHarness()
        let first = try system.start()
        let user = system.client()
        try user.run("group", "create", "work", "--block", "example.com")
        system.stop(first, signal: SIGKILL)
        // The socket the killed service left refuses connections: the
        // client keeps trying while a new service comes up.
        let pending = try user.start(["start", "work", "--for", "10m", "--json"])
        let second = try system.start(keepingSocket: true)
        defer { system.stop(second) }
        let start = try user.finish(pending)
        #expect(start.status == 0, "\(start.err)")
        let held = try user.run("system", "status", "--json").json["blocks"] as? [[String: Any]] ?? []
        #expect(held.count == 1, "the service holds the session's block: \(held)")
        #expect(system.blocked == ["example.com"])
        #expect(try user.run("stop").status == 0)
    }

    @Test("with no service installed, auto records the block as before; once installed, doctor flags the session that blocks nothing")
    func sessionFromBeforeTheService() throws {
        let system = try SystemServiceHarness()
        let user = system.client()
        try user.run("group", "create", "work", "--block", "example.com")
        let start = try user.run("start", "work", "--for", "10m")
        #expect(start.status == 0 && start.prose.contains("sudo retime system install"), "\(start.out)")
        #expect(try doctorCheck(user, "session shield") == nil, "no service: nothing to flag")

        let service = try system.start()
        defer { system.stop(service) }
        let flagged = try doctorCheck(user, "session shield")
        #expect(flagged?["status"] as? String == "error", "\(String(describing: flagged))")
        #expect((flagged?["detail"] as? String ?? "").contains("blocks nothing"), "\(String(describing: flagged))")
        #expect(try user.run("stop").status == 0)
        #expect(try user.run("start", "work", "--for", "10m").status == 0)
        #expect(system.blocked == ["example.com"], "the next session blocks through the service")
        #expect(try doctorCheck(user, "session shield") == nil)
        #expect(try user.run("stop").status == 0)
    }

    @Test("after the service is removed on purpose, a user who went through it is stranded nowhere: status, doctor, stop and the next start exit 0, and auto falls back to none saying so")
    func removedService() throws {
        let system = try SystemServiceHarness()
        let service = try system.start()
        let user = system.client()
        try user.run("group", "create", "work", "--block", "example.com")
        let first = try user.run("start", "work", "--for", "10m")
        #expect(first.status == 0 && system.blocked == ["example.com"], "\(first.err)")
        let before = try user.run("status")
        #expect(before.prose.contains("The system service lifts this session's block at its end itself"),
                "without the daemon, status does not say the block waits for it: \(before.out)")
        // What `system uninstall` does to a service on its own socket: it is
        // stopped, its blocks lifted, and its socket gone.
        system.stop(service)
        try? FileManager.default.removeItem(atPath: system.socket)
        let status = try user.run("status")
        #expect(status.status == 0 && !status.err.contains("cannot be reached"), "\(status.err)")
        #expect(status.prose.contains("the system service was removed") && !status.prose.contains("The system service lifts"),
                "status says the block went with the service, not that the service will lift it: \(status.out)")
        let blocks = try doctorCheck(user, "blocks")
        #expect((blocks?["detail"] as? String ?? "").contains("was removed"), "\(String(describing: blocks))")
        let stop = try user.run("stop")
        #expect(stop.status == 0, "the session whose block the uninstall lifted ends cleanly: \(stop.err)")
        let again = try user.run("start", "work", "--for", "10m")
        #expect(again.status == 0 && again.prose.contains("sudo retime system install"), "auto falls back to none, saying so: \(again.out) \(again.err)")
        #expect(try user.run("stop").status == 0)
        #expect(try user.run("status").status == 0)
    }
}
