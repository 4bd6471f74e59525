import Domain
import FoundationEssentials
#if canImport(Glibc)
import Glibc
#endif

/// Writes records to a size-rotated file in the stream handler's format:
/// the daemon's own log, readable when no journal is.
public struct FileLogHandler: LogHandler {
    public var logLevel: LogLevel
    public var metadata: LogMetadata = [:]
    private let file: RotatingFile
    private let now: @Sendable () -> Date

    public init(file: RotatingFile, level: LogLevel, now: @escaping @Sendable () -> Date = { Date() }) {
        self.file = file
        self.logLevel = level
        self.now = now
    }

    public func log(_ record: LogRecord) {
        file.append(LogLine.format(record, metadata: record.merged(with: metadata), timestamp: LogLine.timestamp(now())))
    }
}
