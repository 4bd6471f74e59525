import Foundation

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

    /// Parses `HH:MM` or `HH:MM:SS`.
    public init?(parsing text: String) {
        let parts = text.split(separator: ":", omittingEmptySubsequences: false)
        guard (2...3).contains(parts.count), parts.allSatisfy({ $0.count == 2 && $0.allSatisfy { $0.isASCII && $0.isNumber } }),
              let hour = Int(parts[0]), let minute = Int(parts[1]), let second = parts.count == 3 ? Int(parts[2]) : 0 else {
            return nil
        }
        self.init(hour: hour, minute: minute, second: second)
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

    /// Reads `daily`, `weekdays`, `weekends` or a list like `mon,wed,fri`.
    public static func parseSet(_ text: String) -> Set<Weekday>? {
        switch text.lowercased() {
        case "daily": return Set(allCases)
        case "weekdays": return weekdays
        case "weekends": return weekends
        default:
            let days = text.lowercased().split(separator: ",", omittingEmptySubsequences: false)
                .map { Weekday(rawValue: String($0.prefix(3)).trimmedSpaces) }
            guard !days.isEmpty, days.allSatisfy({ $0 != nil }) else { return nil }
            return Set(days.compactMap { $0 })
        }
    }
}
