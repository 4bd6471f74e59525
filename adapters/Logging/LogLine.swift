import Domain
import FoundationEssentials
#if canImport(Glibc)
import Glibc
#endif

/// The line format of swift-log's `StreamLogHandler`, which the stream and
/// file handlers share: `2026-11-22T06:15:51+0000 warning retime.cli: key=value message`.
enum LogLine {
    static func format(_ record: LogRecord, metadata: LogMetadata, timestamp: String?) -> String {
        var line = timestamp.map { $0 + " " } ?? ""
        line += "\(record.level.rawValue) \(record.label):"
        for (key, value) in metadata.sorted(by: { $0.key < $1.key }) { line += " \(key)=\(value)" }
        line += " " + record.message.description.replacingAll("\n", with: "\\n")
        return line + "\n"
    }

    /// Local time with its offset, as swift-log writes it.
    static func timestamp(_ date: Date) -> String {
        var text = Timestamp.format(date, offset: SystemTimeZone.current().rules.offset(at: date), fractionDigits: 0)
        if text.hasSuffix("Z") { return text.dropLast() + "+0000" }
        text.remove(at: text.index(text.endIndex, offsetBy: -3))   // the colon of ±HH:MM
        return text
    }

    /// The syslog priority journald reads from a `<N>` line prefix.
    static func syslogPriority(_ level: LogLevel) -> Int {
        switch level {
        case .trace, .debug: 7
        case .info: 6
        case .notice: 5
        case .warning: 4
        case .error: 3
        case .critical: 2
        }
    }
}
