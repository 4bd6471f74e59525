import Domain
import FoundationEssentials
#if canImport(Glibc)
import Glibc
#endif

/// Month keys of history segments.
enum SegmentName {
    /// `2026-11` for an instant in November 2026, UTC.
    static func month(of date: Date) -> String {
        String(Timestamp.format(date, fractionDigits: 0).prefix(7))
    }

    /// The instants of `month` (`2026-11`), UTC; nil if it names none.
    static func range(of month: String) -> Range<Date>? {
        let parts = month.split(separator: "-", omittingEmptySubsequences: false)
        guard parts.count == 2, parts[0].count == 4, parts[1].count == 2, let year = Int64(parts[0]), let number = Int64(parts[1]),
              (1...12).contains(number) else { return nil }
        let (nextYear, next) = number == 12 ? (year + 1, Int64(1)) : (year, number + 1)
        let start = Double(Timestamp.days(fromCivil: year, number, 1) * 86_400)
        let end = Double(Timestamp.days(fromCivil: nextYear, next, 1) * 86_400)
        return Date(timeIntervalSince1970: start)..<Date(timeIntervalSince1970: end)
    }

    /// Whether sessions starting in `month` can match the query's range.
    static func month(_ month: String, overlaps query: HistoryQuery) -> Bool {
        guard query.since != nil || query.until != nil else { return true }
        let parts = month.split(separator: "-").compactMap { Int($0) }
        guard parts.count == 2, let start = Timestamp.parse(month + "-01T00:00:00Z") else { return true }
        let (year, next) = parts[1] == 12 ? (parts[0] + 1, 1) : (parts[0], parts[1] + 1)
        guard let end = Timestamp.parse("\(year)-\(next < 10 ? "0" : "")\(next)-01T00:00:00Z") else { return true }
        if let since = query.since, end <= since { return false }
        if let until = query.until, start >= until { return false }
        return true
    }
}

/// The health of the history, line by line.
public struct HistoryAudit: Sendable, Equatable {
    public struct Line: Sendable, Equatable {
        public var path: String
        public var number: Int
    }

    public var segments = 0
    public var sessions = 0
    public var malformed: [Line] = []
}
