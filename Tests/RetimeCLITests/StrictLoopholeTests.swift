import Foundation
import Testing

/// The ways a user's own tools could undo a strict session, tried through
/// the binary (semantics.md, "Strict sessions", "Schedules").
@Suite("Strict loopholes through the binary")
struct StrictLoopholeTests {
    let retime = RetimeProcess()

    /// The local time `offset` seconds from now, as `--until` takes it.
    func localTime(_ offset: TimeInterval) -> String {
        let parts = Calendar.current.dateComponents([.hour, .minute], from: Date().addingTimeInterval(offset))
        return String(format: "%02d:%02d", parts.hour!, parts.minute!)
    }

    @Test("start --strict --until a time that passed 22 minutes ago is refused (exit 2) with the date to give; without --strict it starts")
    func strictUntilTomorrow() throws {
        let refused = try retime.run("start", "--strict", "--until", localTime(-22 * 60), "--json")
        #expect(refused.status == 2 && refused.errorCode == "session.strictUntilFarAhead", "\(refused.err)")
        #expect(refused.err.contains("more than 12 hours") && refused.err.contains("--until 'YYYY-MM-DD HH:MM'"))
        #expect((try retime.run("status", "--json").json["active"] as? Bool) == false)
        #expect(try retime.run("start", "--strict", "--until", localTime(2 * 3_600)).status == 0, "two hours ahead is taken")
    }

    @Test("a second data directory on the same hosts file neither lifts nor replaces a strict block")
    func secondDataDirectory() throws {
        let hosts = retime.dataDirectory + "-hosts", original = "127.0.0.1 localhost\n"
        #expect(FileManager.default.createFile(atPath: hosts, contents: Data(original.utf8)))
        let other = RetimeProcess()
        for data in [retime, other] {
            try data.run("config", "set", "shield.hostsFile", hosts)
            try data.run("config", "set", "shield", "hosts")
            try data.run("group", "create", "work", "--block", "example.com")
        }
        try other.run("group", "block", "work", "other.example")
        #expect(try retime.run("start", "work", "--for", "30m", "--strict").status == 0)
        let blocked = try String(contentsOfFile: hosts, encoding: .utf8)
        #expect(blocked.contains("0.0.0.0 example.com"))

        let doctor = try other.run("doctor", "--repair", "--json")
        let blocks = (doctor.json["checks"] as? [[String: String]])?.first { $0["name"] == "blocks" }
        #expect(blocks?["status"] == "ok", "\(blocks ?? [:])")
        #expect(try String(contentsOfFile: hosts, encoding: .utf8) == blocked, "doctor --repair of another data directory left it")

        let start = try other.run("start", "work", "--json")
        #expect(start.status != 0 && start.err.contains("another retime data directory"), "\(start.err)")
        #expect(try String(contentsOfFile: hosts, encoding: .utf8) == blocked, "start of another data directory left it")
        #expect((try other.run("status", "--json").json["active"] as? Bool) == false, "its session was withdrawn")
        #expect(try retime.run("status").out.contains("shield: hosts"))
    }
}
