#if canImport(Glibc)
import Domain
import FoundationEssentials
import JSONDocument
#endif

/// A writer's own lines, taken into its reader as it writes them: `stop`
/// writes the session slot twice and its teardown makes the slot's
/// snapshot, and each of those read back, and parsed, the whole ended
/// session the write before had just appended.
extension ChangeLogReader {
    /// Takes in `written` (decoded), the lines `bytes` this process has
    /// just appended to `path` under the suite's lock, as reading them on
    /// would, without parsing them back. Taken only when `stamp` (the file
    /// after the append) is exactly what was read of it plus `bytes`: the
    /// same file (device, inode), as long as the two together, and every
    /// value one that reads back as it is. Otherwise (false) nothing is
    /// taken, and the next read reads on from the file as before.
    mutating func takeWritten(_ written: [ChangeLine.Decoded], bytes: [UInt8], to path: String,
                              now stamp: POSIXFiles.FileStamp, stampedAt: Int64) -> Bool {
        let before = files[path]
        let consumed = (before?.consumed ?? 0) + bytes.count
        guard bytes.last == 0x0A, stamp.size == Int64(consumed) else { return false }
        if let before, before.stamp.device != stamp.device || before.stamp.inode != stamp.inode { return false }
        guard written.allSatisfy({ $0.changes.allSatisfy(\.kind.readsBackExactly) }) else { return false }
        for line in written { take(line) }
        if indexedPath == path {
            if before == nil { indexed = [] }
            var start = 0
            for (line, end) in zip(written, bytes.indices.filter { bytes[$0] == 0x0A }) {
                indexed.append(IndexedLine(bytes: Array(bytes[start..<end]), line: line))
                start = end + 1
            }
        }
        let lastStart = bytes.dropLast().lastIndex(of: 0x0A).map { $0 + 1 } ?? 0
        let hash = bytes.withUnsafeBufferPointer { ContentHash.of($0, continuing: before?.hash ?? ContentHash.start) }
        files[path] = Progress(stamp: stamp, consumed: consumed, lines: (before?.lines ?? 0) + written.count,
                               lastLine: Array(bytes[lastStart...]), hash: hash, stampedAt: stampedAt)
        return true
    }
}

extension ChangeLine.Kind {
    /// Whether the line's text reads back as this very change: every
    /// value but a whole double does (the text of 3.0 is `3`, read back as
    /// an integer; the store's encoder writes whole doubles as integers, a
    /// value built by hand may not).
    var readsBackExactly: Bool {
        switch self {
        case .set(_, let value?), .add(_, let value), .remove(_, let value): value.readsBackExactly
        case .set(_, nil), .delete: true
        }
    }
}

extension JSONValue {
    /// No whole or infinite double anywhere in it (see `ChangeLine.Kind.readsBackExactly`).
    var readsBackExactly: Bool {
        switch self {
        case .null, .bool, .int, .string: true
        case .double(let number): number.isFinite && number != number.rounded()
        case .array(let items): items.allSatisfy(\.readsBackExactly)
        case .object(let members): members.values.allSatisfy(\.readsBackExactly)
        }
    }
}
