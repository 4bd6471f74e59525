import Domain
import FoundationEssentials
#if canImport(Glibc)
import Glibc
#endif

/// Writes records to standard error in swift-log's `StreamLogHandler`
/// format. When standard error is the systemd journal (`JOURNAL_STREAM`
/// names its device and inode), each line starts with its syslog priority
/// (`<3>`, `<6>`, ...) and leaves the timestamp to the journal.
public struct StreamLogHandler: LogHandler {
    public var logLevel: LogLevel
    public var metadata: LogMetadata = [:]
    private let toJournal: Bool
    private let now: @Sendable () -> Date
    private let write: @Sendable (String) -> Void

    /// A handler writing to this process's standard error.
    public static func standardError(level: LogLevel, environment: [String: String] = ProcessInfo.processInfo.environment) -> StreamLogHandler {
        StreamLogHandler(level: level, toJournal: isJournal(fileDescriptor: 2, environment: environment),
                         now: { Date() }, write: { text in
                             var text = text
                             text.withUTF8 { _ = Glibc.write(2, $0.baseAddress, $0.count) }
                         })
    }

    public init(level: LogLevel, toJournal: Bool, now: @escaping @Sendable () -> Date, write: @escaping @Sendable (String) -> Void) {
        self.logLevel = level
        self.toJournal = toJournal
        self.now = now
        self.write = write
    }

    public func log(_ record: LogRecord) {
        let merged = record.merged(with: metadata)
        if toJournal {
            write("<\(LogLine.syslogPriority(record.level))>" + LogLine.format(record, metadata: merged, timestamp: nil))
        } else {
            write(LogLine.format(record, metadata: merged, timestamp: LogLine.timestamp(now())))
        }
    }

    /// Whether `fileDescriptor` is the journal stream that `JOURNAL_STREAM`
    /// (`DEVICE:INODE`, set by systemd) describes.
    public static func isJournal(fileDescriptor: Int32, environment: [String: String]) -> Bool {
        guard let value = environment["JOURNAL_STREAM"] else { return false }
        let parts = value.split(separator: ":")
        guard parts.count == 2, let device = UInt64(parts[0]), let inode = UInt64(parts[1]) else { return false }
        var info = stat()
        guard fstat(fileDescriptor, &info) == 0 else { return false }
        return UInt64(info.st_dev) == device && UInt64(info.st_ino) == inode
    }
}
