import Domain
import Synchronization

/// Collects log records in memory for tests. The level and metadata are the
/// handler value's own (copies are independent); the collected records are
/// shared by all copies, so a test can read what any copy logged.
public struct InMemoryLogHandler: LogHandler {
    /// A record as written: the handler's metadata merged in.
    public struct Entry: Sendable, Equatable {
        public var label: String
        public var level: LogLevel
        public var message: String
        public var metadata: LogMetadata
    }

    private final class Store: Sendable {
        let entries = Mutex<[Entry]>([])
    }

    public var logLevel: LogLevel
    public var metadata: LogMetadata = [:]
    private let store = Store()

    public init(logLevel: LogLevel = .trace) {
        self.logLevel = logLevel
    }

    public func log(_ record: LogRecord) {
        let entry = Entry(label: record.label, level: record.level, message: record.message.description,
                          metadata: record.merged(with: metadata))
        store.entries.withLock { $0.append(entry) }
    }

    /// What has been logged through this handler or any copy of it.
    public var entries: [Entry] { store.entries.withLock { $0 } }
}
