import Domain
import FoundationEssentials
import JSONDocument

/// A tracked event's line in `events.jsonl`, built by hand: the bytes
/// `Codable` through the store's encoder wrote (sorted keys, dates as
/// `Timestamp` text, whole doubles as integers), without setting up its
/// containers' type metadata in every process that ends a session (about a
/// tenth of a `stop`'s own work).
enum TrackedEventLine {
    /// The event as one JSON line; nil for one `Codable` could not encode
    /// either (a property that is no finite number), which is not tracked.
    static func line(_ event: TrackedEvent) -> [UInt8]? {
        var properties: [String: JSONValue] = [:]
        for (name, value) in event.properties {
            guard let json = json(value) else { return nil }
            properties[name] = json
        }
        let object: JSONValue = .object(["name": .string(event.name), "at": .string(Timestamp.format(event.at)), "properties": .object(properties)])
        guard let text = try? JSONTextWriter.write(object, layout: .compact) else { return nil }
        return text + [0x0A]
    }

    /// A property as the store's encoder writes it.
    private static func json(_ value: TrackedValue) -> JSONValue? {
        switch value {
        case .string(let text): .string(text)
        case .int(let number): .int(Int64(number))
        case .bool(let flag): .bool(flag)
        case .date(let date): .string(Timestamp.format(date))
        case .double(let number):
            if !number.isFinite { nil } else if number == number.rounded(), abs(number) < 9.2e18 { .int(Int64(number)) } else { .double(number) }
        }
    }
}
