/// The domain's logger, modelled on swift-log's `Logger`: a value with a label
/// and a handler. Copies are independent: changing the level or metadata of
/// one copy never changes another, so a use case can add context freely.
public struct Logger: Sendable {
    /// Names the component that logs, e.g. `retime.daemon.scheduler`.
    public let label: String
    /// Where records go; its level and metadata travel with this value.
    public var handler: any LogHandler

    public init(label: String, handler: any LogHandler) {
        self.label = label
        self.handler = handler
    }

    /// The least severe level that is passed on to the handler.
    public var logLevel: LogLevel {
        get { handler.logLevel }
        set { handler.logLevel = newValue }
    }

    /// Metadata attached to every record of this logger.
    public subscript(metadataKey key: String) -> LogMetadataValue? {
        get { handler[metadataKey: key] }
        set { handler[metadataKey: key] = newValue }
    }

    /// Sends a record to the handler if `level` is enabled; the message and
    /// metadata are built only then.
    public func log(
        level: LogLevel,
        _ message: @autoclosure () -> LogMessage,
        metadata: @autoclosure () -> LogMetadata? = nil,
        source: String? = nil,
        file: String = #fileID, function: String = #function, line: UInt = #line
    ) {
        guard level >= handler.logLevel else { return }
        handler.log(LogRecord(
            label: label, level: level, message: message(), metadata: metadata() ?? [:],
            source: source ?? Self.module(of: file), file: file, function: function, line: line))
    }

    /// The module part of a `#fileID` (`Domain/Session/...` -> `Domain`).
    private static func module(of fileID: String) -> String {
        fileID.split(separator: "/", maxSplits: 1).first.map(String.init) ?? "retime"
    }
}

extension Logger {
    public func trace(_ message: @autoclosure () -> LogMessage, metadata: @autoclosure () -> LogMetadata? = nil, file: String = #fileID, function: String = #function, line: UInt = #line) {
        log(level: .trace, message(), metadata: metadata(), file: file, function: function, line: line)
    }
    public func debug(_ message: @autoclosure () -> LogMessage, metadata: @autoclosure () -> LogMetadata? = nil, file: String = #fileID, function: String = #function, line: UInt = #line) {
        log(level: .debug, message(), metadata: metadata(), file: file, function: function, line: line)
    }
    public func info(_ message: @autoclosure () -> LogMessage, metadata: @autoclosure () -> LogMetadata? = nil, file: String = #fileID, function: String = #function, line: UInt = #line) {
        log(level: .info, message(), metadata: metadata(), file: file, function: function, line: line)
    }
    public func notice(_ message: @autoclosure () -> LogMessage, metadata: @autoclosure () -> LogMetadata? = nil, file: String = #fileID, function: String = #function, line: UInt = #line) {
        log(level: .notice, message(), metadata: metadata(), file: file, function: function, line: line)
    }
    public func warning(_ message: @autoclosure () -> LogMessage, metadata: @autoclosure () -> LogMetadata? = nil, file: String = #fileID, function: String = #function, line: UInt = #line) {
        log(level: .warning, message(), metadata: metadata(), file: file, function: function, line: line)
    }
    public func error(_ message: @autoclosure () -> LogMessage, metadata: @autoclosure () -> LogMetadata? = nil, file: String = #fileID, function: String = #function, line: UInt = #line) {
        log(level: .error, message(), metadata: metadata(), file: file, function: function, line: line)
    }
    public func critical(_ message: @autoclosure () -> LogMessage, metadata: @autoclosure () -> LogMetadata? = nil, file: String = #fileID, function: String = #function, line: UInt = #line) {
        log(level: .critical, message(), metadata: metadata(), file: file, function: function, line: line)
    }
}
