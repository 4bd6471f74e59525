import FoundationEssentials

/// Records named product events (`session-started`, `interval-skipped`, ...)
/// with typed properties, for hooks, notifications and insight. Like a log
/// handler, tracking must never fail or block the action that reports it.
public protocol Tracker: Sendable {
    func track(_ event: TrackedEvent)
}

/// One named event, when it happened, and what describes it.
public struct TrackedEvent: Sendable, Equatable, Codable {
    public var name: String
    public var at: Date
    public var properties: [String: TrackedValue]

    public init(name: String, at: Date, properties: [String: TrackedValue] = [:]) {
        self.name = name
        self.at = at
        self.properties = properties
    }
}

/// A property value of a tracked event: a closed set, so every adapter can
/// serialise every event. Encodes as a plain JSON value; a date as its
/// ISO-8601 text (`Timestamp`), which is how it is recognised when read.
public enum TrackedValue: Sendable, Equatable, CustomStringConvertible {
    case string(String)
    case int(Int)
    case double(Double)
    case bool(Bool)
    case date(Date)

    public var description: String {
        switch self {
        case .string(let value): value
        case .int(let value): String(value)
        case .double(let value): String(value)
        case .bool(let value): String(value)
        case .date(let value): Timestamp.format(value)
        }
    }
}

extension TrackedValue: Codable {
    public init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        if let flag = try? container.decode(Bool.self) {
            self = .bool(flag)
        } else if let number = try? container.decode(Int.self) {
            self = .int(number)
        } else if let number = try? container.decode(Double.self) {
            self = .double(number)
        } else {
            let text = try container.decode(String.self)
            self = text.hasSuffix("Z") && text.count >= 20 ? Timestamp.parse(text).map(TrackedValue.date) ?? .string(text) : .string(text)
        }
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        switch self {
        case .string(let value): try container.encode(value)
        case .int(let value): try container.encode(value)
        case .double(let value): try container.encode(value)
        case .bool(let value): try container.encode(value)
        case .date(let value): try container.encode(Timestamp.format(value))
        }
    }
}

extension TrackedValue: ExpressibleByStringLiteral, ExpressibleByIntegerLiteral, ExpressibleByBooleanLiteral {
    public init(stringLiteral value: String) { self = .string(value) }
    public init(integerLiteral value: Int) { self = .int(value) }
    public init(booleanLiteral value: Bool) { self = .bool(value) }
}
