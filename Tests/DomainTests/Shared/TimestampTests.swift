import Adapters
import Domain
import Foundation
import PortContracts
import Testing

@Suite("Timestamp: ISO-8601 text, exactly reversible")
struct TimestampTests {
    @Test("100,000 random instants from 2001 to 2200 survive format and parse unchanged")
    func exactRoundTrip() {
        var generator = SystemRandomNumberGenerator()
        for _ in 0..<100_000 {
            let date = Date(timeIntervalSinceReferenceDate: Double.random(in: 1e7...6.3e9, using: &generator))
            #expect(Timestamp.parse(Timestamp.format(date)) == date)
        }
    }

    /// The text as `format` wrote it when it joined padded strings: the
    /// bytes it writes now must be the same, for any instant it takes.
    static func joined(_ date: Date, offset: Int, fractionDigits: Int) -> String {
        func pad(_ value: Int64, _ width: Int) -> String {
            let digits = String(value)
            return digits.count >= width ? digits : String(repeating: "0", count: width - digits.count) + digits
        }
        let t = date.timeIntervalSinceReferenceDate
        var whole = Int64(t.rounded(.down))
        let digits = min(max(fractionDigits, 0), 9)
        let scale = (0..<digits).reduce(Int64(1)) { power, _ in power * 10 }
        var nanos = Int64(((t - Double(whole)) * Double(scale)).rounded())
        if nanos >= scale { whole += 1; nanos -= scale }
        let local = whole + 978_307_200 + Int64(offset)
        let days = local >= 0 ? local / 86_400 : (local - 86_399) / 86_400
        let secondOfDay = local - days * 86_400
        let (year, month, day) = Timestamp.civil(fromDays: days)
        var text = pad(year, 4) + "-" + pad(month, 2) + "-" + pad(day, 2) + "T"
            + pad(secondOfDay / 3_600, 2) + ":" + pad(secondOfDay / 60 % 60, 2) + ":" + pad(secondOfDay % 60, 2)
        if nanos != 0 { text += "." + pad(nanos, digits) }
        guard offset != 0 else { return text + "Z" }
        let minutes = abs(offset) / 60
        return text + (offset < 0 ? "-" : "+") + pad(Int64(minutes / 60), 2) + ":" + pad(Int64(minutes % 60), 2)
    }

    @Test("50,000 random instants, years -9999 to 99999, any offset and digits: the text the joined strings made")
    func sameTextAsJoined() {
        var generator = SystemRandomNumberGenerator()
        for _ in 0..<50_000 {
            let date = Date(timeIntervalSinceReferenceDate: Double.random(in: -3.8e11...3.1e12, using: &generator))
            let offset = Int.random(in: -50_400...50_400, using: &generator) / 60 * 60
            let digits = Int.random(in: -1...10, using: &generator)
            #expect(Timestamp.format(date, offset: offset, fractionDigits: digits) == Self.joined(date, offset: offset, fractionDigits: digits))
        }
        #expect(Timestamp.format(Date(timeIntervalSinceReferenceDate: -6.4e10)) == Self.joined(Date(timeIntervalSinceReferenceDate: -6.4e10), offset: 0, fractionDigits: 9))
    }

    @Test("known instants format as UTC text with nanoseconds")
    func knownInstants() {
        #expect(Timestamp.format(Date(timeIntervalSince1970: 0)) == "1970-01-01T00:00:00Z")
        #expect(Timestamp.format(Date(timeIntervalSince1970: 951_782_400)) == "2000-02-29T00:00:00Z")
        #expect(Timestamp.format(Date(timeIntervalSinceReferenceDate: 800_000_000.5)) == "2026-05-09T06:13:20.500000000Z")
        #expect(Timestamp.format(Date(timeIntervalSince1970: 1_767_225_600), offset: -18_000, fractionDigits: 0)
                == "2025-12-31T19:00:00-05:00")
        #expect(Timestamp.format(Date(timeIntervalSince1970: 1_767_225_600), offset: 19_800) == "2026-01-01T05:30:00+05:30")
    }

    @Test("offsets, lower-case letters, missing seconds and long fractions parse", arguments: [
        ("2026-01-01T05:30:00+05:30", 1_767_225_600.0), ("2025-12-31T19:00-05:00", 1_767_225_600),
        ("2026-01-01t00:00:00z", 1_767_225_600), ("2026-01-01T00:00:00.250Z", 1_767_225_600.25),
        ("2026-01-01T01:00:00+0100", 1_767_225_600), ("2026-01-01T00:00:00.1234567891234Z", 1_767_225_600.123456789),
    ])
    func parses(text: String, unix: Double) throws {
        let date = try #require(Timestamp.parse(text))
        #expect(abs(date.timeIntervalSince1970 - unix) < 1e-6)
    }

    @Test("malformed text is refused", arguments: [
        "", "2026", "2026-13-01T00:00:00Z", "2026-02-29T00:00:00Z", "2026-01-01 00:00:00Z", "2026-01-01T24:00:00Z",
        "2026-01-01T00:00:00", "2026-01-01T00:00:00.Z", "2026-01-01T00:00:00+25:00", "2026-01-01T00:00:00Zjunk", "２０２６-01-01T00:00:00Z",
    ])
    func refuses(text: String) {
        #expect(Timestamp.parse(text) == nil)
    }

    @Test("a session survives the store's JSON coding unchanged")
    func sessionThroughStoreJSON() throws {
        let session = try Session(groupId: GroupID(), startedAt: Date(timeIntervalSinceReferenceDate: 815_000_000.123456),
                                  plannedEnd: Date(timeIntervalSinceReferenceDate: 815_001_500.987654), strict: true,
                                  tags: ["a"], note: "n", origin: .schedule("s"))
            .pausing(at: Date(timeIntervalSinceReferenceDate: 815_000_100.000001))
        let data = try StoreJSON.encoder().encode(session)
        #expect(try StoreJSON.decoder().decode(Session.self, from: data) == session)
        #expect(try JSONValueCoding.decode(Session.self, from: JSONValueCoding.encode(session)) == session)
    }
}
