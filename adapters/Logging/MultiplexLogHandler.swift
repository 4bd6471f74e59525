import Domain

/// Sends every record to several handlers, as swift-log's multiplex handler
/// does: each keeps its own level, and the multiplex's level is the most
/// verbose of them, so none misses what it asked for.
public struct MultiplexLogHandler: LogHandler {
    private var handlers: [any LogHandler]

    public init(_ handlers: [any LogHandler]) {
        self.handlers = handlers
    }

    public var logLevel: LogLevel {
        get { handlers.map(\.logLevel).min() ?? .critical }
        set { for index in handlers.indices { handlers[index].logLevel = newValue } }
    }

    public var metadata: LogMetadata {
        get {
            handlers.reduce(into: LogMetadata()) { merged, handler in
                merged.merge(handler.metadata) { current, _ in current }
            }
        }
        set { for index in handlers.indices { handlers[index].metadata = newValue } }
    }

    public func log(_ record: LogRecord) {
        for handler in handlers where record.level >= handler.logLevel {
            handler.log(record)
        }
    }
}
