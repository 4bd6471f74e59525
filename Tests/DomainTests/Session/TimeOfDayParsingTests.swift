import Domain
import Testing

/// `TimeOfDay(parsing:)` reads bytes now (issue 45: every stored schedule's
/// times are parsed at each read of them); it takes exactly what the
/// parser before it took: `HH:MM[:SS]`, two ASCII digits each, in range.
@Suite("Parsing a time of day")
struct TimeOfDayParsingTests {
    /// The parser before, by `Character`s and substrings.
    static func reference(_ text: String) -> TimeOfDay? {
        let parts = text.split(separator: ":", omittingEmptySubsequences: false)
        guard (2...3).contains(parts.count), parts.allSatisfy({ $0.count == 2 && $0.allSatisfy { $0.isASCII && $0.isNumber } }),
              let hour = Int(parts[0]), let minute = Int(parts[1]), let second = parts.count == 3 ? Int(parts[2]) : 0 else {
            return nil
        }
        return TimeOfDay(hour: hour, minute: minute, second: second)
    }

    @Test("every text of up to six of these characters parses as before")
    func sameAsBefore() {
        let alphabet: [String] = ["0", "1", "2", "5", "9", ":", "a", "\u{663}"]
        var texts = [""]
        for _ in 0..<6 {
            texts = texts.flatMap { text in alphabet.map { text + $0 } } + [""]
            for text in texts where TimeOfDay(parsing: text) != Self.reference(text) {
                Issue.record("\(text.debugDescription): \(String(describing: TimeOfDay(parsing: text))) != \(String(describing: Self.reference(text)))")
                return
            }
        }
    }

    @Test("times and near-times", arguments: ["09:00", "23:59:59", "00:00:00", "24:00", "12:60", "12:00:60", "9:00", "09:00:",
                                              "09::00", ":09:00", "09:00:00:00", "0９:00", "09:0\u{301}0", " 09:00", "09:00\n", ""])
    func cases(_ text: String) {
        #expect(TimeOfDay(parsing: text) == Self.reference(text))
    }

    @Test func fields() throws {
        let time = try #require(TimeOfDay(parsing: "07:08:09"))
        #expect((time.hour, time.minute, time.second) == (7, 8, 9))
        #expect(TimeOfDay(parsing: "23:45")?.secondsOfDay == 23 * 3_600 + 45 * 60)
    }
}
