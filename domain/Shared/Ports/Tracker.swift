import Foundation

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
/// serialise every event.
public enum TrackedValue: Sendable, Equatable, Codable, CustomStringConvertible {
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
        case .date(let value): value.formatted(.iso8601)
        }
    }
}

extension TrackedValue: ExpressibleByStringLiteral, ExpressibleByIntegerLiteral, ExpressibleByBooleanLiteral {
    public init(stringLiteral value: String) { self = .string(value) }
    public init(integerLiteral value: Int) { self = .int(value) }
    public init(booleanLiteral value: Bool) { self = .bool(value) }
}
