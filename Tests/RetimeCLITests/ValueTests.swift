import Adapters
import Domain
import Foundation
@testable import RetimeCLI
import Testing

@Suite("Reading durations, times and dates")
struct ValueTests {
    @Test("durations", arguments: [("90s", 90.0), ("25m", 1_500), ("1h30m", 5_400), ("2h", 7_200), ("1h30m15s", 5_415),
                                    ("PT25M", 1_500), ("pt1h", 3_600), ("PT90S", 90), ("1.5h", 5_400), (" 5m ", 300)])
    func durations(text: String, seconds: TimeInterval) throws {
        #expect(try DurationValue.parse(text, option: "for") == seconds)
    }

    @Test("durations are shown to the nearest second (issue 29: 39.997 s of focus is 40s, not 39s)",
          arguments: [(39.997, "40s"), (39.4, "39s"), (3_599.6, "1h"), (0.4, "0s"), (5_415.5, "1h 30m 16s"), (.nan, "0s")])
    func shown(_ seconds: Double, _ text: String) {
        #expect(DurationValue.format(seconds) == text)
    }

    @Test("malformed durations are usage errors", arguments: ["", "25", "m", "5x", "1m1h", "2h2h", "PT", "-5m", "1e9h", "٣m"])
    func badDurations(text: String) {
        #expect(throws: UsageError.self) { try DurationValue.parse(text, option: "for") }
    }

    /// 2026-03-08 in New York: 02:00 does not exist (spring forward).
    let values = DateValue(now: Timestamp.parse("2026-03-07T15:00:00-05:00")!, timeZone: SystemTimeZone.named("America/New_York")!)

    @Test("a time means its next occurrence in the local zone")
    func times() throws {
        #expect(Timestamp.format(try values.when("17:30", option: "until"), fractionDigits: 0) == "2026-03-07T22:30:00Z")
        #expect(Timestamp.format(try values.when("09:00:30", option: "until"), fractionDigits: 0) == "2026-03-08T13:00:30Z")
        #expect(Timestamp.format(try values.when("15:00", option: "until"), fractionDigits: 0) == "2026-03-08T19:00:00Z")
        #expect(try values.when("2026-03-07T18:00:00Z", option: "until") == Timestamp.parse("2026-03-07T18:00:00Z"))
        #expect(throws: UsageError.self) { try values.when("25:00", option: "until") }
        #expect(throws: UsageError.self) { try values.when("soon", option: "until") }
    }

    @Test("a date-time without an offset is local time, T or a space between; a skipped time is the first instant after")
    func localDateTimes() throws {
        #expect(Timestamp.format(try values.when("2026-03-07 18:00", option: "until"), fractionDigits: 0) == "2026-03-07T23:00:00Z")
        #expect(Timestamp.format(try values.when("2026-03-09T08:15:30", option: "until"), fractionDigits: 0) == "2026-03-09T12:15:30Z")
        // 02:30 on 2026-03-08 does not exist in New York: clocks go 01:59:59 EST -> 03:00 EDT.
        #expect(Timestamp.format(try values.when("2026-03-08 02:30", option: "until"), fractionDigits: 0) == "2026-03-08T07:00:00Z")
        // 01:30 on 2026-11-01 happens twice: the first (EDT) one.
        #expect(Timestamp.format(try values.when("2026-11-01 01:30", option: "until"), fractionDigits: 0) == "2026-11-01T05:30:00Z")
        #expect(Timestamp.format(try values.date("2026-03-07 18:00", option: "since"), fractionDigits: 0) == "2026-03-07T23:00:00Z")
        for bad in ["2026-03-07 24:00", "2026-03-07  18:00", "2026-02-30 10:00", "2026-03-07 +1:30", "2026-03-07 18:00:00 ", "2026-03-07T18"] {
            #expect(throws: UsageError.self, "\(bad)") { try values.when(bad, option: "until") }
        }
        #expect(throws: UsageError.self) { try values.when("+1:30", option: "until") }
    }

    @Test("dates are local midnights; today, yesterday and -Nd count local days")
    func dates() throws {
        #expect(Timestamp.format(try values.date("2026-03-08", option: "since"), fractionDigits: 0) == "2026-03-08T05:00:00Z")
        #expect(Timestamp.format(try values.date("today", option: "since"), fractionDigits: 0) == "2026-03-07T05:00:00Z")
        #expect(Timestamp.format(try values.date("yesterday", option: "since"), fractionDigits: 0) == "2026-03-06T05:00:00Z")
        #expect(Timestamp.format(try values.date("-7d", option: "since"), fractionDigits: 0) == "2026-02-28T05:00:00Z")
        for bad in ["2026-02-30", "2026-13-01", "tomorrow", "-d", "26-03-08"] {
            #expect(throws: UsageError.self) { try values.date(bad, option: "since") }
        }
    }

    @Test("a date whose midnight does not exist starts where the report's day starts: the first instant after")
    func dateInGap() throws {
        let santiago = DateValue(now: Timestamp.parse("2026-09-10T12:00:00Z")!, timeZone: SystemTimeZone.named("America/Santiago")!)
        #expect(Timestamp.format(try santiago.date("2026-09-06", option: "since"), fractionDigits: 0) == "2026-09-06T04:00:00Z")
        #expect(Timestamp.format(try santiago.date("2026-09-07", option: "since"), fractionDigits: 0) == "2026-09-07T03:00:00Z")
        #expect(Timestamp.format(try santiago.date("0001-01-01", option: "since"), fractionDigits: 0).hasPrefix("0001-01-01"))
    }
}
