import Domain
import JSONDocument

/// The documents that `--json` prints: one compact line with sorted keys,
/// byte-for-byte stable between runs, written by the one JSON writer with
/// numbers to the millisecond and strings safe for a terminal.
enum JSONWriter {
    static func write(_ value: JSONValue) -> String {
        // Milliseconds never throw: a non-finite number is written as null.
        let bytes = (try? JSONTextWriter.write(value, layout: .compact, numbers: .milliseconds, strings: .safeForTerminals)) ?? Array("null".utf8)
        return String(decoding: bytes, as: UTF8.self)
    }
}
