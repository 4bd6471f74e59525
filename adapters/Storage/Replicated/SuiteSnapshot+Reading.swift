import Domain
import JSONDocument

/// Reading a snapshot back: every command that a snapshot serves loads
/// one or two, so the parts that are always needed (its sources, to check
/// it against the logs) are read straight into their values, and the
/// values themselves only as they are asked for (`SnapshotValues`).
extension SuiteSnapshot {
    /// The snapshot at `path`, if it is one this retime wrote; nil for
    /// anything else (missing, torn, another version).
    static func load(_ path: String) -> SuiteSnapshot? {
        guard let bytes = try? POSIXFiles.read(path), let (members, values, sources) = try? document(bytes),
              members["format"] == .string(format), members["version"] == .int(version), let values, let sources,
              case .object(let unseenMembers)? = members["unseen"], case .object(let lastValues)? = members["lastValues"],
              case .object(let removedMembers)? = members["removedBy"] else { return nil }
        var removedBy: [String: String] = [:]
        for (key, member) in removedMembers {
            guard case .string(let device) = member else { return nil }
            removedBy[key] = device
        }
        var unseen: [String: [JSONValue]] = [:]
        for (key, member) in unseenMembers {
            guard case .array(let items) = member else { return nil }
            unseen[key] = items
        }
        // Only a write needs it, and starts from the logs without it.
        var latest: HybridTimestamp?
        if case .string(let text)? = members["latest"] { latest = HybridTimestamp(text: text) }
        return SuiteSnapshot(sources: sources, values: values, unseen: unseen, lastValues: lastValues, removedBy: removedBy, latest: latest)
    }

    /// The snapshot's members: `values` left in its text (read one by one
    /// when asked for) but checked to be JSON, as every other member;
    /// `sources` read into `Source`s (nil: one lacks its name, length or
    /// hash, or it is no array).
    private static func document(_ bytes: [UInt8]) throws
        -> (members: [String: JSONValue], values: SnapshotValues?, sources: [Source]?) {
        try bytes.withUnsafeBufferPointer { buffer in
            var reader = JSONByteReader(buffer)
            var members: [String: JSONValue] = [:], values: SnapshotValues?, sources: [Source]?
            try reader.expect(UInt8(ascii: "{"))
            if !reader.take(UInt8(ascii: "}")) {
                repeat {
                    let name = try reader.readString()
                    try reader.expect(UInt8(ascii: ":"))
                    if name == "values", reader.peek() == UInt8(ascii: "{") {
                        values = try SnapshotValues(reading: &reader, in: bytes)
                    } else if name == "sources", reader.peek() == UInt8(ascii: "[") {
                        sources = try readSources(&reader)
                    } else {
                        members[name] = try JSONText.readValue(&reader, depth: 1)
                    }
                } while reader.take(UInt8(ascii: ","))
                try reader.expect(UInt8(ascii: "}"))
            }
            guard reader.atEnd else { throw JSONText.Malformed(description: "text after the snapshot") }
            return (members, values, sources)
        }
    }

    /// `[{"changed":…,"device":…,"hash":"…","inode":…,"length":…,"modified":…,"name":"…","size":…},…]`
    /// read member by member, with no tree in between (ten devices' logs
    /// made one of eighty members at every load: half of loading the
    /// groups' snapshot). A member it does not know is passed over.
    private static func readSources(_ reader: inout JSONByteReader) throws -> [Source]? {
        try reader.expect(UInt8(ascii: "["))
        var sources: [Source] = [], complete = true
        if reader.take(UInt8(ascii: "]")) { return sources }
        repeat {
            guard reader.peek() == UInt8(ascii: "{") else {
                try reader.skipValue()
                complete = false
                continue
            }
            _ = reader.take(UInt8(ascii: "{"))
            var name: String?, hash: UInt64?
            var length: Int64?, device: Int64?, inode: Int64?, size: Int64?, modified: Int64?, changed: Int64?
            if !reader.take(UInt8(ascii: "}")) {
                repeat {
                    // Told apart by their bytes: no String made of each name.
                    let member = try reader.withString(SourceMember.init)
                    try reader.expect(UInt8(ascii: ":"))
                    let value = try JSONText.readValue(&reader, depth: 3)
                    let number: Int64? = if case .int(let number) = value { number } else { nil }
                    switch member {
                    case .name: if case .string(let text) = value { name = text }
                    case .hash: if case .string(let hex) = value { hash = UInt64(hex, radix: 16) }
                    case .length: length = number
                    case .device: device = number
                    case .inode: inode = number
                    case .size: size = number
                    case .modified: modified = number
                    case .changed: changed = number
                    case .other: break
                    }
                } while reader.take(UInt8(ascii: ","))
                try reader.expect(UInt8(ascii: "}"))
            }
            guard let name, let hash, let length else {
                complete = false
                continue
            }
            var stamp: POSIXFiles.FileStamp?
            if let device, let inode, let size, let modified, let changed {
                var read = POSIXFiles.FileStamp()
                (read.device, read.inode, read.size) = (UInt64(bitPattern: device), UInt64(bitPattern: inode), size)
                (read.modifiedNanoseconds, read.changedNanoseconds) = (modified, changed)
                stamp = read
            }
            sources.append(Source(name: name, length: Int(length), hash: hash, stamp: stamp))
        } while reader.take(UInt8(ascii: ","))
        try reader.expect(UInt8(ascii: "]"))
        return complete ? sources : nil
    }
}

/// A member of a snapshot's source, by the bytes of its name.
private enum SourceMember {
    case name, hash, length, device, inode, size, modified, changed, other

    init(_ raw: UnsafeBufferPointer<UInt8>) {
        func named(_ text: StaticString) -> Bool {
            raw.count == text.utf8CodeUnitCount && raw.elementsEqual(UnsafeBufferPointer(start: text.utf8Start, count: text.utf8CodeUnitCount))
        }
        self = if named("name") { .name } else if named("hash") { .hash } else if named("length") { .length }
            else if named("device") { .device } else if named("inode") { .inode } else if named("size") { .size }
            else if named("modified") { .modified } else if named("changed") { .changed } else { .other }
    }
}
