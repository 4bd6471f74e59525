import Domain

/// The rules every `LogHandler` keeps, after swift-log's handler contract:
/// value semantics for level and metadata, and a `log` that takes anything.
public enum LogHandlerContract {
    public typealias Factory = @Sendable () async throws -> any LogHandler

    public static let checks: [ContractCheck<Factory>] = [
        ContractCheck("the log level belongs to the value: changing a copy leaves the original") { make in
            var original = try await make()
            original.logLevel = .info
            var copy = original
            copy.logLevel = .error
            try requireEqual(original.logLevel, .info, "original's level")
            try requireEqual(copy.logLevel, .error, "copy's level")
        },
        ContractCheck("metadata belongs to the value: changing a copy leaves the original") { make in
            var original = try await make()
            original[metadataKey: "session"] = "a"
            var copy = original
            copy[metadataKey: "session"] = "b"
            copy[metadataKey: "extra"] = "x"
            try requireEqual(original[metadataKey: "session"], "a", "original's metadata")
            try require(original[metadataKey: "extra"] == nil, "original gained the copy's key")
            try requireEqual(copy[metadataKey: "session"], "b", "copy's metadata")
        },
        ContractCheck("metadata set through a logger reads back, nested values included") { make in
            var logger = Logger(label: "contract", handler: try await make())
            logger[metadataKey: "nested"] = ["list": ["1", "2"], "name": "x"]
            try requireEqual(logger[metadataKey: "nested"], ["list": ["1", "2"], "name": "x"], "nested metadata")
            logger[metadataKey: "nested"] = nil
            try require(logger[metadataKey: "nested"] == nil, "removed metadata")
        },
        ContractCheck("log takes every level and any message or metadata without failing") { make in
            var handler = try await make()
            handler.logLevel = .trace
            let logger = Logger(label: "contract", handler: handler)
            for level in LogLevel.allCases {
                logger.log(level: level, "", metadata: [:])
                logger.log(level: level, "ünïcødé \u{1F600} \n second line", metadata: ["k": "v\u{0}", "": []])
                logger.log(level: level, LogMessage(String(repeating: "x", count: 10_000)),
                           metadata: ["n": .stringConvertible(42)])
            }
        },
    ]
}
