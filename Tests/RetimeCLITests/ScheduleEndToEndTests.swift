import Foundation
import Testing

/// `retime schedule` as a user runs it, in temporary data directories.
@Suite("retime schedule")
struct ScheduleEndToEndTests {
    let retime = RetimeProcess()

    @Test("add, list, next, disable, enable, remove, with the contract's JSON")
    func lifecycle() throws {
        try retime.run("group", "create", "work")
        let added = try retime.run("schedule", "add", "mornings", "--group", "work", "--from", "09:00", "--to", "12:00",
                                   "--days", "weekdays", "--warn", "5m", "--strict", "--json")
        #expect(added.status == 0)
        let schedule = try #require(added.json["schedule"] as? [String: Any])
        #expect(Set(schedule.keys) == ["id", "name", "group", "from", "to", "days", "warnSeconds", "strict", "enabled"])
        #expect(schedule["days"] as? [String] == ["mon", "tue", "wed", "thu", "fri"])
        #expect(schedule["warnSeconds"] as? Int == 300 && schedule["from"] as? String == "09:00:00")

        var utc = retime
        utc.environment["TZ"] = "UTC"
        let next = try utc.run("schedule", "next", "--count", "3", "--from", "2026-11-21T00:00:00Z", "--json")
        let events = try #require(next.json["events"] as? [[String: String]])
        #expect(events == [
            ["schedule": "mornings", "event": "intervalWillStartWarning", "at": "2026-11-23T08:55:00Z"],
            ["schedule": "mornings", "event": "intervalDidStart", "at": "2026-11-23T09:00:00Z"],
            ["schedule": "mornings", "event": "intervalWillEndWarning", "at": "2026-11-23T11:55:00Z"],
        ])
        // Strict: disabling waits for the end of its next interval (issue 28).
        #expect(try retime.run("schedule", "disable", "MORNINGS").status == 0)
        let waiting = try retime.run("schedule", "list", "--json").json["schedules"] as? [[String: Any]]
        let pending = try #require(waiting?.first?["pending"] as? [String: String])
        #expect(pending["change"] == "disable" && waiting?.first?["enabled"] as? Bool == true)
        let after = try #require(pending["at"])
        let coming = try retime.run("schedule", "next", "--count", "50", "--json").json["events"] as? [[String: String]] ?? []
        #expect(!coming.isEmpty && coming.allSatisfy { ($0["at"] ?? "") <= after } && coming.last?["event"] == "intervalDidEnd", "\(coming)")
        #expect(try retime.run("schedule", "enable", "mornings").status == 0)
        let listed = try retime.run("schedule", "list", "--json").json["schedules"] as? [[String: Any]]
        #expect(listed?.first?["enabled"] as? Bool == true && listed?.first?["group"] as? String == "work")
        #expect(listed?.first?["pending"] == nil, "enable withdrew the wait")

        let delete = try retime.run("group", "delete", "work", "--json")
        #expect(delete.status == 1 && delete.errorCode == "group.inUse" && delete.err.contains("schedule 'mornings'"))
        let remove = try retime.run("schedule", "remove", "mornings")
        #expect(remove.status == 0 && remove.out.contains("removed after its next interval"), "\(remove.out)")
        #expect(try retime.run("group", "delete", "work").status == 1, "the schedule still guards its group until it is gone")
    }

    @Test("issue 28: once a strict schedule's delayed removal has taken effect, group delete no longer counts it, with no schedule command in between",
          .enabled(if: AuthEndToEndTests.hasFaketime, "needs faketime and a dynamically linked binary"))
    func delayedRemovalFreesItsGroup() throws {
        var morning = RetimeProcess()
        morning.environment["TZ"] = "UTC"
        var evening = morning
        morning.launcher = ["/usr/bin/faketime", "2026-11-24 08:00:00"]
        evening.launcher = ["/usr/bin/faketime", "2026-11-24 10:00:01"]
        #expect(try morning.run("group", "create", "work").status == 0)
        #expect(try morning.run("schedule", "add", "m", "--group", "work", "--from", "09:00", "--to", "10:00", "--strict").status == 0)
        let remove = try morning.run("schedule", "remove", "m")
        #expect(remove.status == 0 && remove.out.contains("removed after its next interval"), "\(remove.out)")
        let early = try morning.run("group", "delete", "work", "--json")
        #expect(early.status == 1 && early.errorCode == "group.inUse", "before 10:00 the schedule still guards its group: \(early.err)")
        // 10:00:01: its interval is over, the removal made; nothing has
        // stored that yet.
        let late = try evening.run("group", "delete", "work", "--json")
        #expect(late.status == 0, "the removed schedule no longer holds its group: \(late.err)")
        let listed = try evening.run("schedule", "list", "--json").json["schedules"] as? [Any]
        #expect(listed?.isEmpty ?? true, "\(listed ?? [])")
    }

    @Test("a schedule that is not strict is disabled and removed at once")
    func looseLifecycle() throws {
        try retime.run("group", "create", "work")
        #expect(try retime.run("schedule", "add", "m", "--group", "work", "--from", "09:00", "--to", "12:00").status == 0)
        #expect(try retime.run("schedule", "disable", "m").status == 0)
        #expect((try retime.run("schedule", "next", "--json").json["events"] as? [Any])?.isEmpty == true)
        #expect(try retime.run("schedule", "remove", "m").status == 0)
        #expect(try retime.run("group", "delete", "work").status == 0)
    }

    @Test("issue 28: a strict schedule is removed at once only with the passcode; without one set, --passcode-stdin is refused (exit 3)")
    func strictWithPasscode() throws {
        try retime.run("group", "create", "work")
        #expect(try retime.run("schedule", "add", "m", "--group", "work", "--from", "09:00", "--to", "12:00", "--strict").status == 0)
        let none = try retime.run(["schedule", "remove", "m", "--passcode-stdin", "--json"], input: "1234\n")
        #expect(none.status == 3 && none.errorCode == "schedule.strict", "\(none.err)")
        #expect(try retime.run(["auth", "set-passcode", "--stdin"], input: "right-one\n").status == 0)
        #expect(try retime.run(["schedule", "disable", "m", "--passcode-stdin"], input: "wrong-one\n").status == 3)
        #expect(try retime.run(["schedule", "remove", "m", "--passcode-stdin"], input: "right-one\n").status == 0)
        #expect((try retime.run("schedule", "list", "--json").json["schedules"] as? [Any])?.isEmpty == true)
    }

    @Test("a range of days is the days it spans, as the list and the next events show")
    func dayRange() throws {
        try retime.run("group", "create", "work")
        let added = try retime.run("schedule", "add", "late", "--group", "work", "--from", "21:00", "--to", "22:00",
                                   "--days", "fri-mon", "--json")
        #expect(added.status == 0)
        #expect((added.json["schedule"] as? [String: Any])?["days"] as? [String] == ["mon", "fri", "sat", "sun"])
        var utc = retime
        utc.environment["TZ"] = "UTC"
        // From Tuesday 2026-11-24: Friday, Saturday, Sunday, Monday, then Friday again.
        let next = try utc.run("schedule", "next", "--count", "10", "--from", "2026-11-24T00:00:00Z", "--json")
        let starts = (next.json["events"] as? [[String: String]] ?? []).filter { $0["event"] == "intervalDidStart" }.map { $0["at"] }
        #expect(starts == ["2026-11-27T21:00:00Z", "2026-11-28T21:00:00Z", "2026-11-29T21:00:00Z", "2026-11-30T21:00:00Z",
                           "2026-12-04T21:00:00Z"])
    }

    @Test("mistakes exit with the right code", arguments: [
        (["schedule", "add", "x", "--group", "nope", "--from", "09:00", "--to", "10:00"], Int32(1), "group.notFound"),
        (["schedule", "add", "x", "--group", "work", "--from", "9", "--to", "10:00"], 2, "schedule.invalidTime"),
        (["schedule", "add", "x", "--group", "work", "--from", "09:00"], 2, "usage.missingArgument"),
        (["schedule", "add", "x", "--group", "work", "--from", "09:00", "--to", "10:00", "--days", "funday"], 2, "schedule.invalidDays"),
        (["schedule", "add", "x", "--group", "work", "--from", "09:00", "--to", "10:00", "--days", "mon–fri"], 2, "schedule.invalidDays"),
        (["schedule", "remove", "ghost"], 1, "schedule.notFound"),
        (["schedule", "next", "--count", "-1"], 2, "usage.invalidValue"),
    ])
    func mistakes(arguments: [String], status: Int32, code: String) throws {
        try retime.run("group", "create", "work")
        let outcome = try retime.run(arguments + ["--json"])
        #expect(outcome.status == status)
        #expect(outcome.errorCode == code)
    }
}
