#if canImport(Glibc)
import Domain
import FoundationEssentials
import Glibc
import JSONDocument
#endif

/// The undo journal as one more append-only file in the device's history
/// folder, `history/<device-id>/changes.journal` (not `.jsonl`: readers of
/// the month segments pass it by). A change is one line
/// `{"change":{...}}`, undoing it one line `{"at":...,"undone":ID}`; each
/// is written with `O_APPEND` under the file's lock and `fsync`ed. A torn
/// last line (a crash mid-write) is skipped, and the next append starts a
/// fresh line. See docs/history.md, "Undo".
public struct JSONLinesHistoryJournal: HistoryJournal {
    static let fileName = "changes.journal"
    /// The most the journal may hold before reading it is refused: an import
    /// journals every session it touched, twice over for updates.
    static let readLimit = 512 << 20
    public let directory: String
    let deviceID: @Sendable () throws -> String
    let lockTimeout: Double

    /// `directory`: the history folder (`DATA_DIR/history`).
    public init(directory: String, deviceID: @escaping @Sendable () throws -> String, lockTimeout: Double = 5) {
        self.directory = directory
        self.deviceID = deviceID
        self.lockTimeout = lockTimeout
    }

    public func record(_ change: HistoryChange) async throws {
        try append(Self.line(change))
    }

    public func markUndone(_ change: UUID, at: Date) async throws {
        try append(Array(#"{"at":"\#(Timestamp.format(at))","undone":"\#(change.uuidString.lowercased())"}"#.utf8) + [0x0A])
    }

    public func pending() async throws -> [HistoryChange] {
        try read().pending
    }

    public func latest() async throws -> Date? {
        try read().latest
    }

    /// The changes not undone, and the latest instant of any line.
    private func read() throws -> (pending: [HistoryChange], latest: Date?) {
        let path = directory + "/" + (try deviceID()) + "/" + Self.fileName
        guard let bytes = try POSIXFiles.read(path, limit: Self.readLimit) else { return ([], nil) }
        var changes: [HistoryChange] = [], undone = Set<UUID>(), latest: Date?
        for line in bytes.split(separator: UInt8(ascii: "\n")) {
            // A torn or hand-damaged line is no change: skipped.
            guard case .object(let members)? = try? JSONText.parse(Array(line)) else { continue }
            if case .object(let fields)? = members["change"], let change = try? Self.change(fields) {
                changes.append(change)
                latest = max(latest ?? change.at, change.at)
            }
            if case .string(let text)? = members["undone"], let id = UUID(uuidString: text) { undone.insert(id) }
            if case .string(let text)? = members["at"], let at = Timestamp.parse(text) { latest = max(latest ?? at, at) }
        }
        return (changes.filter { !undone.contains($0.id) }, latest)
    }

    /// A change's line, `{"change":{at, entries:[{after, before, id}], id,
    /// kind, source}}`, keys in order; its sessions written as history's
    /// own lines (`SessionLineEncoder`: an import journals every session it
    /// adds, and the tree coder took as long as the import itself).
    static func line(_ change: HistoryChange) throws -> [UInt8] {
        var bytes = Array(#"{"change":{"at":"\#(Timestamp.format(change.at))","entries":["#.utf8)
        bytes.reserveCapacity(change.entries.count * 600)
        for (index, entry) in change.entries.enumerated() {
            if index > 0 { bytes.append(UInt8(ascii: ",")) }
            bytes.append(UInt8(ascii: "{"))
            if let after = entry.after { bytes += Array(#""after":"#.utf8) + (try SessionLineCodec.encode(after)).dropLast() + [UInt8(ascii: ",")] }
            if let before = entry.before { bytes += Array(#""before":"#.utf8) + (try SessionLineCodec.encode(before)).dropLast() + [UInt8(ascii: ",")] }
            bytes += Array(#""id":"\#(entry.id)"}"#.utf8)
        }
        bytes += Array(#"],"id":"\#(change.id.uuidString.lowercased())","kind":"\#(change.kind.rawValue)""#.utf8)
        if let source = change.source {
            bytes += Array(#","source":"#.utf8)
            JSONStringEscaping.append(source, to: &bytes)
        }
        return bytes + Array("}}\n".utf8)
    }

    /// A change read back from its line's fields.
    static func change(_ fields: [String: JSONValue]) throws -> HistoryChange {
        guard case .string(let at)? = fields["at"], let instant = Timestamp.parse(at),
              case .string(let id)? = fields["id"], let uuid = UUID(uuidString: id),
              case .string(let kind)? = fields["kind"], let known = HistoryChange.Kind(rawValue: kind),
              case .array(let items)? = fields["entries"] else {
            throw JSONText.Malformed(description: "a change without its instant, id, kind or entries")
        }
        func session(_ value: JSONValue?) throws -> Session? {
            guard let value, value != .null else { return nil }
            return try JSONTextWriter.write(value, layout: .compact).withUnsafeBufferPointer { try SessionLineCodec.decode($0) }
        }
        let entries = try items.map { item -> HistoryChange.Entry in
            guard case .object(let entry) = item else { throw JSONText.Malformed(description: "an entry that is not an object") }
            return HistoryChange.Entry(before: try session(entry["before"]), after: try session(entry["after"]))
        }
        var source: String?
        if case .string(let text)? = fields["source"] { source = text }
        return HistoryChange(id: uuid, kind: known, at: instant, source: source, entries: entries)
    }

    private func append(_ bytes: [UInt8]) throws {
        try DeviceLineFile.append(bytes, to: Self.fileName, in: directory + "/" + (try deviceID()), lockTimeout: lockTimeout)
    }
}
