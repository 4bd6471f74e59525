import Adapters
import Domain
import Testing

@Suite("Logger and the in-memory and multiplex handlers")
struct LoggingTests {
    @Test("records below the logger's level are dropped, and their messages never built")
    func levelFilter() {
        let handler = InMemoryLogHandler(logLevel: .warning)
        let logger = Logger(label: "retime.test", handler: handler)
        var built = false
        logger.info("\({ built = true; return "x" }())")
        logger.warning("kept")
        logger.critical("also kept")
        #expect(!built)
        #expect(handler.entries.map(\.message) == ["kept", "also kept"])
        #expect(handler.entries.map(\.level) == [.warning, .critical])
        #expect(handler.entries.allSatisfy { $0.label == "retime.test" })
    }

    @Test("a record carries the logger's metadata overlaid by the call's")
    func metadataMerge() {
        let handler = InMemoryLogHandler()
        var logger = Logger(label: "t", handler: handler)
        logger[metadataKey: "session"] = "s1"
        logger[metadataKey: "group"] = "work"
        logger.info("hello", metadata: ["group": "play", "extra": "1"])
        #expect(handler.entries.first?.metadata == ["session": "s1", "group": "play", "extra": "1"])
    }

    @Test("a copy of a logger with more metadata leaves the original as it was")
    func loggerValueSemantics() {
        let handler = InMemoryLogHandler()
        let base = Logger(label: "t", handler: handler)
        var scoped = base
        scoped[metadataKey: "session"] = "s1"
        scoped.logLevel = .error
        base.info("from base")
        scoped.error("from scoped")
        #expect(handler.entries.map(\.metadata) == [[:], ["session": "s1"]])
        #expect(base.logLevel == .trace)
    }

    @Test("the multiplex handler gives each handler what its own level asks for")
    func multiplex() {
        let verbose = InMemoryLogHandler(logLevel: .debug)
        let quiet = InMemoryLogHandler(logLevel: .error)
        let logger = Logger(label: "t", handler: MultiplexLogHandler([verbose, quiet]))
        #expect(logger.logLevel == .debug)
        logger.debug("d")
        logger.error("e")
        #expect(verbose.entries.map(\.message) == ["d", "e"])
        #expect(quiet.entries.map(\.message) == ["e"])
    }

    @Test("levels order from trace to critical")
    func levelOrder() {
        #expect(LogLevel.allCases == [.trace, .debug, .info, .notice, .warning, .error, .critical])
        #expect(LogLevel.allCases == LogLevel.allCases.sorted())
    }
}
