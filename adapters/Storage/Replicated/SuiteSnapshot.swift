#if canImport(Glibc)
import Domain
import FoundationEssentials
import Glibc
import JSONDocument
#endif

/// A suite's merged values kept beside this device's logs
/// (`devices/<id>/snapshots/<suite>.json`) with what they were merged
/// from: every log file's name, the length of its whole lines and a hash of
/// those bytes. A command that finds every log as the snapshot names it
/// reads the values from this one file instead of parsing and merging every
/// line of every device's log (a `status` on twenty groups: most of its
/// time). It is a cache, never the data:
///
/// - It is used only when the files are exactly those it names, each with
///   exactly the whole lines it hashed (contents, not sizes, inodes or
///   times: a log rewritten to the same size, or a new file on a reused
///   inode with its old time, is another log). Anything else, and anything
///   unreadable or damaged, sends the read to the logs, as before. A log
///   whose stamp (device, inode, size, modification and change times) is
///   still the one it had when read is not read again: its change time
///   moves with any change (a sync tool can set the modification time back,
///   never the change time), once the file had last changed well before it
///   was read (`ChangeLogReader.Progress.settledStamp`).
/// - A log whose text after its last line is damage, or that has no whole
///   line, is never served from here: the full read reports it.
/// - It is written without `fsync` (a lost or torn one is simply not used)
///   and only by this device, into its own folder; no other device reads it.
struct SuiteSnapshot: Equatable {
    /// One log file as the values were merged from it.
    struct Source: Equatable {
        /// Relative to `DATA_DIR/devices`.
        var name: String
        /// Bytes of whole lines (up to its last newline).
        var length: Int
        var hash: UInt64
        /// Its stamp when read, if a later change is sure to move it
        /// (`ChangeLogReader.Progress.settledStamp`): while the file's
        /// stamp is still this one, its bytes are those hashed.
        var stamp: POSIXFiles.FileStamp? = nil
    }

    var sources: [Source]
    /// The merged values; a loaded snapshot reads each from its text when
    /// it is asked for.
    var values: SnapshotValues
    /// Per key of a suite merged per whole value (the session slot): what
    /// `ReplicatedLogStore.unseen`, `lastValue` and `valueRemovedElsewhere`
    /// answer from the merge (`removedBy`: the device whose change removed
    /// a key that holds no value now).
    var unseen: [String: [JSONValue]] = [:]
    var lastValues: [String: JSONValue] = [:]
    var removedBy: [String: String] = [:]
    /// The latest stamp of every line merged, changes and marks alike: a
    /// write that starts from the snapshot ticks its clock past it
    /// (`ReplicatedLogStore.writeFromSnapshot`). Nil in a snapshot made
    /// before it was kept, which no write starts from.
    var latest: HybridTimestamp?

    init(sources: [Source], values: [String: JSONValue], unseen: [String: [JSONValue]] = [:], lastValues: [String: JSONValue] = [:],
         removedBy: [String: String] = [:], latest: HybridTimestamp? = nil) {
        self.init(sources: sources, values: SnapshotValues(values), unseen: unseen, lastValues: lastValues, removedBy: removedBy,
                  latest: latest)
    }

    init(sources: [Source], values: SnapshotValues, unseen: [String: [JSONValue]], lastValues: [String: JSONValue],
         removedBy: [String: String], latest: HybridTimestamp?) {
        (self.sources, self.values, self.unseen, self.lastValues, self.removedBy) = (sources, values, unseen, lastValues, removedBy)
        self.latest = latest
    }

    static func == (lhs: SuiteSnapshot, rhs: SuiteSnapshot) -> Bool {
        lhs.sources == rhs.sources && lhs.unseen == rhs.unseen && lhs.lastValues == rhs.lastValues && lhs.removedBy == rhs.removedBy
            && lhs.latest == rhs.latest && (try? lhs.values.values()) == (try? rhs.values.values())
    }

    static let format = "retime.snapshot"
    /// 2: with `removedBy`; 3: a thing removed for good (a delete's
    /// `ends`) read as removed. A snapshot of another version is merged again.
    static let version: Int64 = 3

    /// Whether `files` (every log of the suite as listed now, full paths
    /// under `directory`) hold exactly the whole lines the values came
    /// from; and when some had to be read to tell (no stamp was settled
    /// when the snapshot was made: a sync tool had just written them) and
    /// are settled now, this snapshot with their stamps (`restamped`), for
    /// the caller to keep: the next reads need not read them again. `read`:
    /// the logs it read and hashed, by path, as it read them (with the
    /// stamp they had then), for a write that needs their lines.
    func check(files: [String], directory: String) -> (current: Bool, restamped: SuiteSnapshot?, read: [String: WholeLines]) {
        guard files.count == sources.count else { return (false, nil, [:]) }
        let listed = files.sorted()
        var sources = sources.sorted(by: { $0.name < $1.name }), restamped = false, read: [String: WholeLines] = [:]
        for (index, path) in listed.enumerated() {
            let source = sources[index]
            guard path == directory + "/" + source.name else { return (false, nil, [:]) }
            // The file as it was read (its stamp could not stay the same
            // through a change): its bytes need no reading.
            if let stamp = source.stamp, (try? POSIXFiles.FileStamp.current(path)) == stamp { continue }
            guard let now = Self.wholeLines(of: path), now.length == source.length, now.hash == source.hash else { return (false, nil, [:]) }
            read[path] = now
            if let stamp = now.settled {
                sources[index].stamp = stamp
                restamped = true
            }
        }
        guard restamped else { return (true, nil, read) }
        var kept = self
        kept.sources = sources
        return (true, kept, read)
    }

    /// Writes it in place of the last one (temp file, rename; no `fsync`).
    /// Failing is harmless: the next read merges the logs.
    func write(to path: String) {
        let folder = POSIXFiles.parentDirectory(of: path)
        guard (try? POSIXFiles.ensureDirectory(folder)) != nil else { return }
        var document: [String: JSONValue] = [
            "format": .string(Self.format), "version": .int(Self.version),
            "unseen": .object(unseen.mapValues { .array($0) }), "lastValues": .object(lastValues),
            "removedBy": .object(removedBy.mapValues { .string($0) }),
            "sources": .array(sources.map { source in
                var members: [String: JSONValue] = ["name": .string(source.name), "length": .int(Int64(source.length)),
                                                    "hash": .string(String(source.hash, radix: 16))]
                if let stamp = source.stamp {
                    members["device"] = .int(Int64(bitPattern: stamp.device))
                    members["inode"] = .int(Int64(bitPattern: stamp.inode))
                    members["size"] = .int(stamp.size)
                    members["modified"] = .int(stamp.modifiedNanoseconds)
                    members["changed"] = .int(stamp.changedNanoseconds)
                }
                return .object(members)
            }),
        ]
        if let latest { document["latest"] = .string(latest.description) }
        // The values first, as `SnapshotValues` keeps them: the text of
        // those read from a snapshot and not changed since is copied.
        guard let values = try? values.json(), let rest = try? JSONTextWriter.write(.object(document), layout: .compact) else { return }
        POSIXFiles.writeCache(Array("{\"values\":".utf8) + values + [UInt8(ascii: ",")] + rest.dropFirst(), to: path)
    }

    /// The length and hash of a log's whole lines, and its stamp if a later
    /// change is sure to move it (`ChangeLogReader.Progress.settledStamp`:
    /// the file had last changed well before it was read, and it did not
    /// grow while it was); nil if it cannot be served from a snapshot at
    /// all (unreadable, not a regular file, too large, no whole line, or
    /// damage after its last line: the full read says which).
    static func wholeLines(of path: String) -> WholeLines? {
        let stampedAt = FolderListings.wallNanoseconds()
        guard let (bytes, stamp) = try? POSIXFiles.readStamped(path, limit: ChangeLogReader.readLimit),
              let last = bytes.lastIndex(of: 0x0A) else { return nil }
        let whole = last + 1
        if whole < bytes.count, bytes[whole] != UInt8(ascii: "{") { return nil }
        let hash = bytes.withUnsafeBufferPointer { ContentHash.of(UnsafeBufferPointer(rebasing: $0[..<whole])) }
        let settled = Int64(bytes.count) == stamp.size
            && max(stamp.modifiedNanoseconds, stamp.changedNanoseconds) < stampedAt - FolderListings.settled
        return WholeLines(length: whole, hash: hash, settled: settled ? stamp : nil, stamp: stamp, bytes: bytes)
    }

    /// A log as `wholeLines` read it.
    struct WholeLines {
        /// Bytes of whole lines, and their `ContentHash`.
        var length: Int
        var hash: UInt64
        /// Its stamp, if a later change is sure to move it.
        var settled: POSIXFiles.FileStamp?
        /// Its stamp as it was opened, and every byte read (whole lines first).
        var stamp: POSIXFiles.FileStamp
        var bytes: [UInt8]
    }
}

/// FNV-1a, 64 bits: the same on every run and machine (Swift's `Hasher`
/// is seeded per process), for a snapshot's sources.
enum ContentHash {
    static let start: UInt64 = 0xcbf2_9ce4_8422_2325

    static func of(_ bytes: UnsafeBufferPointer<UInt8>, continuing hash: UInt64 = start) -> UInt64 {
        var hash = hash
        for byte in bytes { hash = (hash ^ UInt64(byte)) &* 0x100_0000_01b3 }
        return hash
    }
}
