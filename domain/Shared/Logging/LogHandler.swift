/// Where a `Logger`'s records go, modelled on swift-log's `LogHandler`.
///
/// The contract every handler keeps (checked by `LogHandlerContract`):
/// - value semantics: `logLevel` and `metadata` belong to this value; a copy
///   changed afterwards does not change the original;
/// - `log(_:)` is the one entry point; it never throws or traps, whatever the
///   message or metadata;
/// - the metadata written for a record is the handler's metadata overlaid by
///   the record's own (`LogRecord.merged(with:)`).
public protocol LogHandler: Sendable {
    func log(_ record: LogRecord)
    var logLevel: LogLevel { get set }
    var metadata: LogMetadata { get set }
}

extension LogHandler {
    public subscript(metadataKey key: String) -> LogMetadataValue? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }
}

/// The seven severities of swift-log, least severe first.
public enum LogLevel: String, Sendable, Codable, CaseIterable, Comparable {
    case trace, debug, info, notice, warning, error, critical

    public static func < (lhs: LogLevel, rhs: LogLevel) -> Bool {
        lhs.severity < rhs.severity
    }

    private var severity: Int { Self.allCases.firstIndex(of: self)! }
}

/// One log event as the handler receives it.
public struct LogRecord: Sendable, Equatable {
    public var label: String
    public var level: LogLevel
    public var message: LogMessage
    /// The metadata given at the call site only; see `merged(with:)`.
    public var metadata: LogMetadata
    public var source: String
    public var file: String
    public var function: String
    public var line: UInt

    public init(label: String, level: LogLevel, message: LogMessage, metadata: LogMetadata = [:],
                source: String = "retime", file: String = #fileID, function: String = #function, line: UInt = #line) {
        self.label = label
        self.level = level
        self.message = message
        self.metadata = metadata
        self.source = source
        self.file = file
        self.function = function
        self.line = line
    }

    /// The handler's metadata overlaid by this record's: what a handler writes.
    public func merged(with handlerMetadata: LogMetadata) -> LogMetadata {
        handlerMetadata.merging(metadata) { _, call in call }
    }
}

/// A log message; built by string interpolation at the call site.
public struct LogMessage: Sendable, Equatable, CustomStringConvertible,
                          ExpressibleByStringLiteral, ExpressibleByStringInterpolation {
    public var description: String

    public init(_ text: String) { description = text }
    public init(stringLiteral value: String) { description = value }
}

public typealias LogMetadata = [String: LogMetadataValue]

/// A typed metadata value, as in swift-log: a string, a value printed on
/// demand, or nested dictionaries and arrays.
public enum LogMetadataValue: Sendable, Equatable, CustomStringConvertible {
    case string(String)
    case stringConvertible(any CustomStringConvertible & Sendable)
    case dictionary(LogMetadata)
    case array([LogMetadataValue])

    public var description: String {
        switch self {
        case .string(let value): value
        case .stringConvertible(let value): value.description
        case .dictionary(let value):
            "[" + value.sorted { $0.key < $1.key }.map { "\($0.key): \($0.value)" }.joined(separator: ", ") + "]"
        case .array(let value): "[" + value.map(\.description).joined(separator: ", ") + "]"
        }
    }

    public static func == (lhs: LogMetadataValue, rhs: LogMetadataValue) -> Bool {
        switch (lhs, rhs) {
        case (.string(let l), .string(let r)): l == r
        case (.stringConvertible(let l), .stringConvertible(let r)): l.description == r.description
        case (.dictionary(let l), .dictionary(let r)): l == r
        case (.array(let l), .array(let r)): l == r
        default: false
        }
    }
}

extension LogMetadataValue: ExpressibleByStringLiteral, ExpressibleByStringInterpolation,
                            ExpressibleByDictionaryLiteral, ExpressibleByArrayLiteral {
    public init(stringLiteral value: String) { self = .string(value) }
    public init(dictionaryLiteral elements: (String, LogMetadataValue)...) {
        self = .dictionary(Dictionary(elements, uniquingKeysWith: { _, last in last }))
    }
    public init(arrayLiteral elements: LogMetadataValue...) { self = .array(elements) }
}
