import Foundation
import Testing

/// Allowances through the binary: `allow` lifts a hosts-file block, the
/// daemon raises it again at the allowance's end, `status`, `group show`
/// and the JSON say what is left, and `allow` is refused when it is spent.
extension DaemonEndToEndTests {
    @Test("allow news 2s lifts the block and the daemon raises it again within 50 ms of the end; then it is refused, spent")
    func allowanceLiftsAndRaisesOnTime() throws {
        let retime = RetimeProcess().atLocalNoon()
        try retime.run("group", "create", "news", "--block", "example.com")
        let hosts = try hostsShield(retime)
        let set = try retime.run("group", "set-allowance", "news", "3s", "--json")
        #expect(set.status == 0 && (set.json["group"] as? [String: Any])?["allowanceSeconds"] as? Int == 3, "\(set.out)\(set.err)")
        let daemon = try startDaemon(retime)
        defer { stop(daemon) }
        #expect(try retime.run("allow", "news").status == 1, "no session of the group runs")
        #expect(try retime.run("start", "news", "--for", "1h").status == 0)
        func blocked() -> Bool { ((try? String(contentsOfFile: hosts, encoding: .utf8)) ?? "").contains("example.com") }
        #expect(blocked())
        let allowed = try retime.run("allow", "news", "2s", "--json")
        #expect(allowed.status == 0, "\(allowed.err)")
        let allowance = try #require(allowed.json["allowance"] as? [String: Any])
        let end = try #require(Self.instant(allowance["endsAt"]))
        #expect(allowance["group"] as? String == "news" && allowance["leftTodaySeconds"] as? Int == 1)
        #expect(!blocked(), "the block is down while the allowance runs")
        let status = try retime.run("status", "--json").json
        #expect((status["allowance"] as? [String: Any])?["leftTodaySeconds"] as? Int == 1, "\(status)")
        #expect(try retime.run("status").out.contains("allowance: the block is lifted"))
        // Poll the hosts file past the end, with a deadline: the lateness is
        // when the file was seen changed, less the allowance's end.
        let deadline = end + 3
        while !blocked(), Date() < deadline { usleep(1_000) }
        let late = Date().timeIntervalSince(end)
        print("allowance end raised the block late by (ms):", Int((late * 1_000).rounded()))
        #expect(blocked(), "the block is back")
        #expect(late > -0.005 && late < 0.050, "within 50 ms of the allowance's end: \(late)")
        #expect(try retime.run("status", "--json").json["allowance"] is NSNull)
        #expect(events(retime, named: "allowance-ended").count == 1, "the daemon recorded the end")
        // One second is left: take it, then nothing is.
        #expect(try retime.run("allow", "news").status == 0)
        #expect(eventually(within: 5) { blocked() })
        let spent = try retime.run("allow", "news", "--json")
        #expect(spent.status == 1 && spent.errorCode == "allowance.spent", "\(spent.err)")
        #expect(try retime.run("group", "show", "news").out.contains("3s a day, 0s left today"))
        let spentToday = try #require(try retime.run("report", "--json").json["allowanceSpent"] as? [[String: Any]])
        #expect(spentToday.count == 1 && spentToday.first?["group"] as? String == "news" && spentToday.first?["seconds"] as? Int == 3, "\(spentToday)")
        #expect(try retime.run("report").out.contains("allowance spent:"))
        #expect(try retime.run("log").out.contains("news  3s"), "log ends with the day's allowance spent")
        #expect((try retime.run("log", "--json").json["allowanceSpent"] as? [[String: Any]])?.first?["seconds"] as? Int == 3)
    }

    @Test("allow's refusals and usage: no allowance, --cancel with none running, a group and --cancel together, a bad duration")
    func allowanceRefusals() throws {
        let retime = RetimeProcess().atLocalNoon()
        try retime.run("group", "create", "news")
        try retime.run("start", "news", "--for", "1h")
        let none = try retime.run("allow", "news", "--json")
        #expect(none.status == 1 && none.errorCode == "allowance.none", "\(none.err)")
        #expect(try retime.run("allow", "--cancel").status == 1)
        #expect(try retime.run("allow").status == 2)
        #expect(try retime.run("allow", "news", "--cancel").status == 2)
        #expect(try retime.run("group", "set-allowance", "news", "soon").status == 2)
        #expect(try retime.run("group", "set-allowance", "news", "25h").status == 2)
        #expect(try retime.run("group", "set-allowance", "news", "10m").status == 0)
        #expect(try retime.run("allow", "news", "5m").status == 0)
        let cancelled = try retime.run("allow", "--cancel", "--json")
        #expect(cancelled.status == 0 && (cancelled.json["givenBackSeconds"] as? Int ?? 0) >= 298, "\(cancelled.out)")
        #expect(try retime.run("group", "show", "news", "--json").json["group"].flatMap { ($0 as? [String: Any])?["allowanceLeftTodaySeconds"] as? Int } ?? 0 >= 598)
        #expect(try retime.run("group", "set-allowance", "news", "none").status == 0)
        #expect((try retime.run("group", "show", "news", "--json").json["group"] as? [String: Any])?["allowanceSeconds"] is NSNull)
    }

    @Test("a strict session refuses a raised allowance with exit 3; a lowered one is taken")
    func allowanceStrict() throws {
        let retime = RetimeProcess().atLocalNoon()
        try retime.run("group", "create", "news")
        try retime.run("group", "set-allowance", "news", "10m")
        try retime.run("start", "news", "--for", "1h", "--strict")
        let raised = try retime.run("group", "set-allowance", "news", "1h")
        #expect(raised.status == 3, "\(raised.err)")
        #expect(try retime.run("group", "set-allowance", "news", "5m").status == 0)
        #expect(try retime.run("allow", "news", "1m").status == 0, "a strict session's block is lifted by its allowance")
    }

    @Test("schedule add --allowance keeps the allowance, shows it in JSON and text, and refuses a bad one")
    func scheduleAllowance() throws {
        let retime = RetimeProcess().atLocalNoon()
        try retime.run("group", "create", "news")
        let added = try retime.run("schedule", "add", "days", "--group", "news", "--from", "09:00", "--to", "17:00", "--days", "weekdays",
                                   "--allowance", "15m", "--json")
        #expect(added.status == 0, "\(added.err)")
        #expect((added.json["schedule"] as? [String: Any])?["allowanceSeconds"] as? Int == 900, "\(added.out)")
        #expect(try retime.run("schedule", "show", "days").out.contains("15m allowed"))
        #expect(try retime.run("schedule", "add", "bad", "--group", "news", "--from", "09:00", "--to", "17:00", "--allowance", "25h").status == 2)
        #expect(try retime.run("schedule", "add", "bad", "--group", "news", "--from", "09:00", "--to", "17:00", "--allowance", "soon").status == 2)
    }
}
