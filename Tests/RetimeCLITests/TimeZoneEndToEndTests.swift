import Domain
import Foundation
import Testing

/// Local times through the binary, which reads the tz database's files
/// itself (no ICU): the zone `TZ` names, and a loud fallback to UTC.
@Suite("time zones end to end")
struct TimeZoneEndToEndTests {
    var retime = RetimeProcess()

    @Test("doctor names the zone local times are read in, and warns with the reason when TZ names none (UTC then)")
    func doctorShowsTheZone() throws {
        var berlin = retime
        berlin.environment["TZ"] = "Europe/Berlin"
        let good = try berlin.run("doctor", "--json")
        let zone = (good.json["checks"] as? [[String: String]])?.first { $0["name"] == "time zone" }
        #expect(zone?["status"] == "ok" && zone?["detail"] == "Europe/Berlin (from TZ=Europe/Berlin)", "\(good.out)")

        var mars = retime
        mars.environment["TZ"] = "Mars/Olympus"
        let bad = try mars.run("doctor", "--json")
        let warning = (bad.json["checks"] as? [[String: String]])?.first { $0["name"] == "time zone" }
        #expect(warning?["status"] == "warning", "\(bad.out)")
        #expect(warning?["detail"]?.contains("TZ=Mars/Olympus is neither a zone") == true, "\(bad.out)")
        #expect(warning?["detail"]?.contains("local times are UTC") == true)
        // Not an error: the rest of the data is fine, and a date still parses (in UTC).
        #expect(bad.status == 0)
        #expect(try mars.run("group", "create", "work").status == 0)
        let track = try mars.run("track", "work", "--from", "2026-07-01 10:00", "--to", "2026-07-01 11:00", "--json")
        #expect(track.status == 0, "\(track.err)")
        let started = ((track.json["session"] as? [String: Any])?["startedAt"] as? String).flatMap(Timestamp.parse)
        #expect(started == Timestamp.parse("2026-07-01T10:00:00Z"), "\(track.out)")
    }

    @Test("a local date-time is read by the zone's rules: Lord Howe's half-hour DST, a POSIX TZ rule, a far-future footer rule")
    func localTimesFollowTheZone() throws {
        #expect(try retime.run("group", "create", "work").status == 0)
        // Lord Howe: +11 in its summer (January), +10:30 in its winter (July).
        for (zone, from, to, utc) in [("Australia/Lord_Howe", "2026-01-15 12:00", "2026-01-15 13:00", "2026-01-15T01:00:00Z"),
                                      ("Australia/Lord_Howe", "2026-07-15 12:00", "2026-07-15 13:00", "2026-07-15T01:30:00Z"),
                                      ("CET-1CEST,M3.5.0,M10.5.0/3", "2026-07-15 12:00", "2026-07-15 13:00", "2026-07-15T10:00:00Z"),
                                      ("America/New_York", "2026-03-08 02:30", "2026-03-08 04:00", "2026-03-08T07:00:00Z")] {
            var local = retime
            local.environment["TZ"] = zone
            let track = try local.run("track", "work", "--from", from, "--to", to, "--json")
            #expect(track.status == 0, "\(zone): \(track.err)")
            let started = ((track.json["session"] as? [String: Any])?["startedAt"] as? String).flatMap(Timestamp.parse)
            #expect(started == Timestamp.parse(utc), "\(zone): \(track.out)")
        }
        // 2150: after every transition the files list; only their footer rule knows.
        var berlin = retime
        berlin.environment["TZ"] = "Europe/Berlin"
        let report = try berlin.run("report", "--since", "2150-07-01", "--until", "2150-07-02", "--json")
        #expect((report.json["since"] as? String)?.hasPrefix("2150-07-01T00:00:00+02:00") == true, "\(report.out) \(report.err)")
    }
}
