import Domain
import JSONDocument
import Synchronization

/// A snapshot's values (`SuiteSnapshot`), each read from the snapshot's
/// text only when it is asked for: a `stop` asks one group's name, and
/// parsing every group of the snapshot for it was an eighth of the
/// command. The text is checked whole when the snapshot is loaded (its
/// structure: `JSONByteReader.skipValue`); a value that still does not
/// read (a number out of range, text that is not UTF-8: a hand edit) is
/// `Damaged`, and the store reads the logs instead, as for any damaged
/// snapshot.
final class SnapshotValues: Sendable {
    /// A value of the snapshot's text that does not read.
    struct Damaged: Error {}

    private let text: [UInt8]
    /// Where each key's value is in `text` (a repeated key: its last).
    private let ranges: [String: Range<Int>]
    /// Every value, once all were asked for (or when made in memory).
    private let all: Mutex<[String: JSONValue]?>

    /// Values held in memory (a snapshot about to be written).
    init(_ values: [String: JSONValue]) {
        text = []
        ranges = [:]
        all = Mutex(values)
    }

    /// `values`, of which those of keys not in `changed` are `base`'s:
    /// their text is written back as `base` read it (`json`), not encoded
    /// again (a write of one schedule of 1,000 encoded all 1,000).
    init(_ values: [String: JSONValue], unchangedFrom base: SnapshotValues, changed: Set<String>) {
        text = base.text
        ranges = base.ranges.filter { !changed.contains($0.key) }
        all = Mutex(values)
    }

    /// The `values` object at the reader's position in `text`: each member
    /// skipped over, its place kept.
    init(reading reader: inout JSONByteReader, in text: [UInt8]) throws {
        var ranges: [String: Range<Int>] = [:]
        try reader.expect(UInt8(ascii: "{"))
        if !reader.take(UInt8(ascii: "}")) {
            repeat {
                let key = try reader.readString()
                try reader.expect(UInt8(ascii: ":"))
                _ = reader.peek()
                let start = reader.index
                try reader.skipValue()
                ranges[key] = start..<reader.index
            } while reader.take(UInt8(ascii: ","))
            try reader.expect(UInt8(ascii: "}"))
        }
        self.text = text
        self.ranges = ranges
        all = Mutex(nil)
    }

    /// The value of `key`, nil if the snapshot has none.
    func value(_ key: String) throws(Damaged) -> JSONValue? {
        if let all = all.withLock({ $0 }) { return all[key] }
        guard let range = ranges[key] else { return nil }
        return try text.withUnsafeBufferPointer { buffer throws(Damaged) in try Self.parse(buffer, range) }
    }

    /// Every value.
    func values() throws(Damaged) -> [String: JSONValue] {
        if let all = all.withLock({ $0 }) { return all }
        var values: [String: JSONValue] = [:]
        values.reserveCapacity(ranges.count)
        // Each value parsed where it is in the text, not copied out first.
        try text.withUnsafeBufferPointer { buffer throws(Damaged) in
            for (key, range) in ranges { values[key] = try Self.parse(buffer, range) }
        }
        all.withLock { $0 = values }
        return values
    }

    /// Every value, each object narrowed to the members named in `members`
    /// (`KeyValueStore.values(of:members:)`): the others passed over in
    /// the text, not parsed (a group's 10,000 targets, to find its name).
    func values(members: Set<String>) throws(Damaged) -> [String: JSONValue] {
        if let all = all.withLock({ $0 }) { return all.mapValues { $0.narrowed(to: members) } }
        var values: [String: JSONValue] = [:]
        values.reserveCapacity(ranges.count)
        try text.withUnsafeBufferPointer { buffer throws(Damaged) in
            for (key, range) in ranges { values[key] = try Self.narrowed(buffer, range, to: members) }
        }
        return values
    }

    /// The value of `key` narrowed so, nil if the snapshot has none.
    func value(_ key: String, members: Set<String>) throws(Damaged) -> JSONValue? {
        if let all = all.withLock({ $0 }) { return all[key]?.narrowed(to: members) }
        guard let range = ranges[key] else { return nil }
        return try text.withUnsafeBufferPointer { buffer throws(Damaged) in try Self.narrowed(buffer, range, to: members) }
    }

    /// The value at `range` of `text`, an object read member by member,
    /// those not in `members` passed over.
    private static func narrowed(_ text: UnsafeBufferPointer<UInt8>, _ range: Range<Int>, to members: Set<String>) throws(Damaged) -> JSONValue {
        do {
            var reader = JSONByteReader(UnsafeBufferPointer(rebasing: text[range]))
            guard reader.take(UInt8(ascii: "{")) else { return try parse(text, range) }
            var kept: [String: JSONValue] = [:]
            if !reader.take(UInt8(ascii: "}")) {
                repeat {
                    let name = try reader.readString()
                    try reader.expect(UInt8(ascii: ":"))
                    if members.contains(name) { kept[name] = try JSONText.readValue(&reader, depth: 1) } else { try reader.skipValue() }
                } while reader.take(UInt8(ascii: ","))
                try reader.expect(UInt8(ascii: "}"))
            }
            guard reader.atEnd else { throw Damaged() }
            return .object(kept)
        } catch {
            throw Damaged()
        }
    }

    /// The values as one JSON object, compact, keys in order: the text of
    /// each value read from a snapshot copied as it is, the others written.
    func json() throws -> [UInt8] {
        let values = all.withLock { $0 }
        var keys = values.map { Array($0.keys) } ?? Array(ranges.keys)
        keys.sort()
        var bytes: [UInt8] = [UInt8(ascii: "{")]
        bytes.reserveCapacity(text.count + 64)
        for (index, key) in keys.enumerated() {
            if index > 0 { bytes.append(UInt8(ascii: ",")) }
            JSONStringEscaping.append(key, to: &bytes)
            bytes.append(UInt8(ascii: ":"))
            if let range = ranges[key] {
                bytes.append(contentsOf: text[range])
            } else if let value = values?[key] {
                bytes += try JSONTextWriter.write(value, layout: .compact)
            }
        }
        bytes.append(UInt8(ascii: "}"))
        return bytes
    }

    private static func parse(_ text: UnsafeBufferPointer<UInt8>, _ range: Range<Int>) throws(Damaged) -> JSONValue {
        do { return try JSONText.parse(UnsafeBufferPointer(rebasing: text[range])) } catch { throw Damaged() }
    }
}
