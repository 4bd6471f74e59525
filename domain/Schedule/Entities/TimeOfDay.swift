import FoundationEssentials

/// A local wall-clock time, `HH:MM[:SS]`, 24-hour.
public struct TimeOfDay: Hashable, Sendable, Comparable, CustomStringConvertible {
    public let hour: Int
    public let minute: Int
    public let second: Int

    public init?(hour: Int, minute: Int, second: Int = 0) {
        guard (0..<24).contains(hour), (0..<60).contains(minute), (0..<60).contains(second) else { return nil }
        self.hour = hour
        self.minute = minute
        self.second = second
    }

    /// Parses `HH:MM` or `HH:MM:SS`: two ASCII digits each.
    public init?(parsing text: String) {
        // By its bytes, with no substrings: every stored schedule's two
        // times are parsed whenever the schedules are read (issue 45).
        var parts = (0, 0, 0), count = 0, digits = 0
        for byte in text.utf8 {
            if byte == UInt8(ascii: ":") {
                guard digits == 2, count < 2 else { return nil }
                count += 1
                digits = 0
                continue
            }
            guard (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte), digits < 2 else { return nil }
            let digit = Int(byte - UInt8(ascii: "0"))
            switch count {
            case 0: parts.0 = parts.0 * 10 + digit
            case 1: parts.1 = parts.1 * 10 + digit
            default: parts.2 = parts.2 * 10 + digit
            }
            digits += 1
        }
        guard digits == 2, count >= 1 else { return nil }
        self.init(hour: parts.0, minute: parts.1, second: parts.2)
    }

    /// Seconds since local midnight.
    public var secondsOfDay: Int { hour * 3_600 + minute * 60 + second }

    public static func < (lhs: TimeOfDay, rhs: TimeOfDay) -> Bool { lhs.secondsOfDay < rhs.secondsOfDay }

    /// `09:00:00`.
    public var description: String {
        [hour, minute, second].map { $0 < 10 ? "0\($0)" : "\($0)" }.joined(separator: ":")
    }
}

extension TimeOfDay: Codable {
    public init(from decoder: any Decoder) throws {
        let text = try decoder.singleValueContainer().decode(String.self)
        guard let time = TimeOfDay(parsing: text) else {
            throw DecodingError.dataCorrupted(.init(codingPath: decoder.codingPath, debugDescription: "'\(text)' is not HH:MM[:SS]"))
        }
        self = time
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(description)
    }
}

/// A day of the week, Monday first as ISO 8601 counts.
public enum Weekday: String, CaseIterable, Sendable, Codable, Comparable {
    case mon, tue, wed, thu, fri, sat, sun

    public static let weekdays: Set<Weekday> = [.mon, .tue, .wed, .thu, .fri]
    public static let weekends: Set<Weekday> = [.sat, .sun]

    /// The weekday of a day counted from 1970-01-01 (a Thursday).
    public init(daysSinceEpoch days: Int64) {
        let index = Int(((days % 7) + 7 + 3) % 7)
        self = Self.allCases[index]
    }

    public static func < (lhs: Weekday, rhs: Weekday) -> Bool {
        allCases.firstIndex(of: lhs)! < allCases.firstIndex(of: rhs)!
    }

    /// Reads `daily`, `weekdays`, `weekends` or a list like `mon,wed,fri`
    /// whose items are days (`mon` or `monday`, any case) or ranges of days
    /// (`mon-fri`; `fri-mon` runs on through the weekend). Nil for anything
    /// else: a day misspelt must not quietly become another schedule.
    public static func parseSet(_ text: String) -> Set<Weekday>? {
        switch text.lowercased() {
        case "daily": return Set(allCases)
        case "weekdays": return weekdays
        case "weekends": return weekends
        default:
            var days: Set<Weekday> = []
            for item in text.lowercased().split(separator: ",", omittingEmptySubsequences: false) {
                let ends = item.split(separator: "-", omittingEmptySubsequences: false).map { named(String($0).trimmedSpaces) }
                switch ends.count {
                case 1:
                    guard let day = ends[0] else { return nil }
                    days.insert(day)
                case 2:
                    guard let first = ends[0], let last = ends[1] else { return nil }
                    days.formUnion(range(from: first, through: last))
                default:
                    return nil
                }
            }
            return days
        }
    }

    /// The day a lower-case name or three-letter abbreviation names.
    private static func named(_ name: String) -> Weekday? {
        Weekday(rawValue: name) ?? allCases.first { name == $0.fullName }
    }

    /// The days from `first` to `last`, going forward and past Sunday if need be.
    private static func range(from first: Weekday, through last: Weekday) -> [Weekday] {
        let start = allCases.firstIndex(of: first)!, end = allCases.firstIndex(of: last)!
        let count = (end - start + 7) % 7 + 1
        return (0..<count).map { allCases[(start + $0) % 7] }
    }

    /// The English name in lower case.
    private var fullName: String {
        switch self {
        case .mon: "monday"
        case .tue: "tuesday"
        case .wed: "wednesday"
        case .thu: "thursday"
        case .fri: "friday"
        case .sat: "saturday"
        case .sun: "sunday"
        }
    }
}
