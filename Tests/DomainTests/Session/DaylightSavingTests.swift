import Adapters
import Domain
import Foundation
import Testing

/// Interval starts across every DST transition of 2025-2027, checked against
/// an independent computation: Python's `zoneinfo` over the system's tz
/// database (not ICU's), applying the rules of semantics.md by brute force.
@Suite("Interval maths across daylight-saving transitions")
struct DaylightSavingTests {
    static let zones = ["America/New_York", "Europe/Berlin", "Australia/Lord_Howe", "America/Santiago", "Asia/Kolkata"]
    static let firstDay = Int64(Timestamp.parse("2025-01-01T00:00:00Z")!.timeIntervalSince1970 / 86_400)
    static let lastDay = Int64(Timestamp.parse("2027-12-31T00:00:00Z")!.timeIntervalSince1970 / 86_400)

    /// Local days around each change of offset in 2025-2027 (a few plain days where there is none).
    static func caseDays(_ zone: TimeZone) -> [Int64] {
        var days = Set<Int64>()
        for day in firstDay...lastDay {
            let noon = { (d: Int64) in zone.secondsFromGMT(for: Date(timeIntervalSince1970: Double(d * 86_400 + 43_200))) }
            if noon(day) != noon(day + 1) { days.formUnion([day - 1, day, day + 1, day + 2]) }
        }
        return days.isEmpty ? [firstDay, firstDay + 100, lastDay] : days.sorted()
    }

    static func civil(_ day: Int64) -> (Int, Int, Int) {
        let parts = Timestamp.format(Date(timeIntervalSince1970: Double(day * 86_400)), fractionDigits: 0).prefix(10)
            .split(separator: "-").map { Int($0)! }
        return (parts[0], parts[1], parts[2])
    }

    @Test("every quarter hour of every day around a transition resolves as zoneinfo says", arguments: zones)
    func matchesZoneinfo(zoneName: String) throws {
        let zone = try #require(TimeZone(identifier: zoneName))
        let calendar = IntervalCalendar(timeZone: try #require(SystemTimeZone.named(zoneName)))
        var cases: [[Any]] = [], actual: [Int64] = []
        for day in Self.caseDays(zone) {
            let (year, month, date) = Self.civil(day)
            for quarter in 0..<96 {
                let from = TimeOfDay(hour: quarter / 4, minute: quarter % 4 * 15)!
                let to = TimeOfDay(hour: quarter / 4, minute: quarter % 4 * 15 + 1)!
                let schedule = Schedule(name: "s", groupId: GroupID(), from: from, to: to, weekdays: Set(Weekday.allCases))
                let instance = try #require(calendar.instance(of: schedule, onDay: day))
                actual.append(Int64(instance.start.timeIntervalSince1970))
                cases.append([zoneName, year, month, date, from.hour, from.minute])
            }
        }
        let expected = try Self.zoneinfo(cases)
        #expect(expected.count == actual.count)
        var mismatches: [String] = []
        for (index, (mine, theirs)) in zip(actual, expected).enumerated() where mine != theirs {
            mismatches.append("\(cases[index]): retime \(mine), zoneinfo \(theirs)")
        }
        #expect(mismatches.isEmpty, "\(mismatches.prefix(10))")
        #expect(cases.count >= 288)
    }

    @Test("a daily interval happens exactly once every local day of 2025-2027, never skipped or doubled", arguments: zones)
    func onceADay(zoneName: String) throws {
        let calendar = IntervalCalendar(timeZone: try #require(SystemTimeZone.named(zoneName)))
        for (from, to) in [("02:30", "03:30"), ("23:30", "00:30"), ("00:00", "01:00")] {
            let schedule = Schedule(name: from, groupId: GroupID(), from: TimeOfDay(parsing: from)!, to: TimeOfDay(parsing: to)!,
                                    weekdays: Set(Weekday.allCases))
            let start = Date(timeIntervalSince1970: Double(Self.firstDay * 86_400 + 43_200))
            let days = Int(Self.lastDay - Self.firstDay)
            let starts = calendar.upcomingEvents(of: [schedule], from: start, count: 2 * days + 4)
                .filter { $0.kind == .intervalDidStart }.prefix(days)
            #expect(starts.count == days)
            #expect(Set(starts.map(\.interval.day)).count == days, "each local day once")
            #expect(zip(starts, starts.dropFirst()).allSatisfy { $0.at < $1.at && $1.at.timeIntervalSince($0.at) >= 82_800 })
        }
    }

    /// Runs the independent computation: for each local wall time, the
    /// earliest valid occurrence, or in a gap the first instant after it.
    static func zoneinfo(_ cases: [[Any]]) throws -> [Int64] {
        let script = """
        import json, sys
        from datetime import datetime
        from zoneinfo import ZoneInfo
        out = []
        for zone, y, mo, d, h, mi in json.load(sys.stdin):
            tz = ZoneInfo(zone)
            naive = datetime(y, mo, d, h, mi)
            wall = lambda t: datetime.fromtimestamp(t, tz).replace(tzinfo=None)
            valid = [int(naive.replace(tzinfo=tz, fold=f).timestamp()) for f in (0, 1)]
            valid = [t for t in valid if wall(t) == naive]
            if valid:
                out.append(min(valid))
                continue
            t = int(min(naive.replace(tzinfo=tz, fold=f).timestamp() for f in (0, 1))) - 7200
            while wall(t) <= naive:
                t += 60
            t -= 60
            while wall(t) <= naive:
                t += 1
            out.append(t)
        print(json.dumps(out))
        """
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["python3", "-c", script]
        let input = Pipe(), output = Pipe()
        process.standardInput = input
        process.standardOutput = output
        try process.run()
        input.fileHandleForWriting.write(try JSONSerialization.data(withJSONObject: cases))
        try input.fileHandleForWriting.close()
        let data = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        guard process.terminationStatus == 0, let values = try JSONSerialization.jsonObject(with: data) as? [NSNumber] else {
            throw CocoaError(.featureUnsupported, userInfo: [NSLocalizedDescriptionKey: "python3 with zoneinfo is needed"])
        }
        return values.map(\.int64Value)
    }
}
