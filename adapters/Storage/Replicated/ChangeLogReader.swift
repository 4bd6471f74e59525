#if canImport(Glibc)
import Domain
import FoundationEssentials
import Glibc
import JSONDocument
#endif

/// Reads change logs into merged records, each file from where the last
/// read of it stopped: logs only grow, so a command's second look, a
/// writer's look under its lock and the daemon's look after a change parse
/// only the lines added since (with 20 writers on one log, re-parsing the
/// whole log at every write made them queue for seconds).
struct ChangeLogReader {
    /// How far one file has been read.
    struct Progress: Equatable {
        var stamp: POSIXFiles.FileStamp
        /// Bytes of whole lines applied, and how many lines that was.
        var consumed: Int
        var lines: Int
        /// The last line applied, newline included: reading on, it must
        /// still be there, where it was (see `read`).
        var lastLine: [UInt8] = []
        /// `ContentHash` of the `consumed` bytes (a snapshot's source).
        var hash = ContentHash.start
        /// The wall clock just before `stamp` was taken (ns).
        var stampedAt: Int64 = 0

        /// `stamp`, when a later change of the file is sure to move it: the
        /// file last changed well before the stamp was taken (file times
        /// move in coarse clock ticks; see `FolderListings`). A snapshot
        /// whose source's stamp is still this one needs no hash of it.
        var settledStamp: POSIXFiles.FileStamp? {
            max(stamp.modifiedNanoseconds, stamp.changedNanoseconds) < stampedAt - FolderListings.settled ? stamp : nil
        }
    }

    /// The file at a path is no longer the one read: read everything again.
    struct Replaced: Error {}

    var files: [String: Progress] = [:]
    var records = ReplicatedRecords<JSONValue>()
    /// Every whole value written, per key, by its stamp, and the stamps of
    /// those a later write replaced knowingly or a device dealt with
    /// (`ReplicatedLogStore.unseen`).
    var wholeValues: [String: [HybridTimestamp: JSONValue]] = [:]
    var acknowledged: Set<HybridTimestamp> = []
    /// Per key, each thing a delete removed for good (its `ends`), and the
    /// latest such delete's stamp; and, by a whole value's stamp (or a
    /// `seen` line's), the value it replaced knowingly: what tells an edit
    /// made unseen of such a delete from a thing made again after it
    /// (`WholeValueEnding`).
    var removals: [String: [String: HybridTimestamp]] = [:]
    var overs: [HybridTimestamp: HybridTimestamp] = [:]
    /// The latest stamp of a line that changes nothing (`seen`): the
    /// records do not hold it, and a writer's clock must still tick past
    /// it, or two of its lines would share one stamp.
    var latestMark: HybridTimestamp?

    /// The latest stamp read, changes and marks alike, whose wall time is at
    /// most `limit` (`HybridClock.horizon`): what this device's clock
    /// takes for its own.
    func latest(notAfter limit: Int64) -> HybridTimestamp? {
        let changed = records.latest(notAfter: limit)
        guard let mark = latestMark, mark.milliseconds <= limit else { return changed }
        return max(changed ?? mark, mark)
    }
    /// The latest stamp read, whatever its wall time (a snapshot's `latest`).
    var latestRead: HybridTimestamp? {
        guard let mark = latestMark else { return records.latest }
        return max(records.latest ?? mark, mark)
    }

    /// The log whose lines are kept as they are read (this device's own,
    /// which only this device compacts), and those lines: compacting it
    /// then parses nothing again (it parsed every line, a third of a
    /// `stop` that compacts the session slot's log).
    var indexedPath: String?
    var indexed: [IndexedLine] = []
    /// This device's folder (`devices/<id>/`, with its slash): its own logs,
    /// whose damage is an error. Another device's log that does not read is
    /// left out of the merge instead, with the stamp it had, until it
    /// changes (semantics.md, "A peer's damage is not mine"): a sync tool
    /// still copying it, a disk that failed there, a hand edit on that
    /// machine must not stop every command here.
    var ownFolder: String?
    var unreadable: [String: (stamp: POSIXFiles.FileStamp?, error: StoreError)] = [:]

    /// One line of `indexedPath`: its bytes (newline excluded) and what it
    /// holds.
    struct IndexedLine {
        var bytes: [UInt8]
        var line: ChangeLine.Decoded
    }

    /// The largest log read: far above years of edits.
    static let readLimit = 64 << 20

    /// Whether `stamps` (the files as they are now) are exactly what was read.
    func isCurrent(_ stamps: [String: POSIXFiles.FileStamp]) -> Bool {
        files.count + unreadable.count == stamps.count && files.allSatisfy { stamps[$0.key] == $0.value.stamp }
            && (unreadable.isEmpty || unreadable.allSatisfy { stamps[$0.key] == $0.value.stamp })
    }

    /// Whether reading on from here sees everything: no file read before
    /// is gone, replaced (another inode) or shorter. A sync tool replaces a
    /// file it updates (a new inode): then everything is read again, which
    /// the merge makes harmless.
    func canContinue(with stamps: [String: POSIXFiles.FileStamp]) -> Bool {
        files.allSatisfy { path, progress in
            guard let now = stamps[path] else { return false }
            return now.device == progress.stamp.device && now.inode == progress.stamp.inode && now.size >= Int64(progress.consumed)
        }
    }

    /// Reads what each of `paths` holds beyond what was read of it.
    mutating func readOn(_ paths: [String], stamps: [String: POSIXFiles.FileStamp]) throws {
        for path in paths where files[path].map({ stamps[path] != $0.stamp }) ?? true {
            if let skipped = unreadable[path] {
                if skipped.stamp == stamps[path] { continue }
                unreadable[path] = nil
            }
            do {
                guard let progress = try Self.read(path, after: files[path], into: &self) else { continue }
                files[path] = progress
            } catch let error as StoreError where !isOwn(path) {
                // What it gave before it was damaged stays merged.
                unreadable[path] = (stamps[path], error)
            }
        }
        if !unreadable.isEmpty { unreadable = unreadable.filter { stamps[$0.key] != nil } }
    }

    /// Whether `path` is one of this device's own logs: in its folder, and
    /// not a conflict copy (a sync tool made that, on another machine).
    func isOwn(_ path: String) -> Bool {
        guard let ownFolder else { return true }
        return path.hasPrefix(ownFolder) && !SyncToolFiles.isConflictCopy(String(path.dropFirst(ownFolder.count)))
    }

    mutating func take(_ line: ChangeLine.Decoded) {
        records.apply(line.changes)
        if line.changes.isEmpty, latestMark.map({ line.at > $0 }) ?? true { latestMark = line.at }
        if let acknowledged = line.acknowledged {
            self.acknowledged.insert(acknowledged)
            overs[line.at] = acknowledged
        }
        if let ends = line.ends { removals[line.key, default: [:]][ends] = max(removals[line.key]?[ends] ?? line.at, line.at) }
        for change in line.changes {
            if case .set(ChangeLine.wholeValue, let value?) = change.kind { wholeValues[line.key, default: [:]][change.at] = value }
        }
    }

    /// Applies the whole lines of `path` after `progress`. The bytes after
    /// the last newline are a write a crash cut short (not read, and cut by
    /// this device's next write) only when they follow a whole line and
    /// start a line as retime writes them; anything else is damage. A log
    /// is made whole (see `ReplicatedLogStore.append`), so one without a
    /// single whole line is damaged too.
    static func read(_ path: String, after progress: Progress?, into reader: inout ChangeLogReader) throws -> Progress? {
        let fd = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK)
        guard fd >= 0 else {
            let code = errno
            if code == ENOENT { return nil }
            if code == ELOOP { throw StoreError.symlinkRefused(path: path) }
            if code == ENXIO { throw StoreError.notRegularFile(path: path, kind: "socket") }
            throw StoreError.unreadable(path: path, reason: POSIXFiles.reason(code))
        }
        defer { close(fd) }
        var info = stat()
        let stampedAt = FolderListings.wallNanoseconds()
        guard fstat(fd, &info) == 0 else { throw StoreError.unreadable(path: path, reason: POSIXFiles.reason()) }
        try POSIXFiles.requireRegular(info, path: path)
        let size = Int(info.st_size)
        guard size <= readLimit else { throw POSIXFiles.tooLarge(path, limit: readLimit) }
        let start = progress?.consumed ?? 0
        // Reading on from where the last read stopped is right only if the
        // file is the one read then, grown. A compacted log is another file
        // whose inode can be the old one's, reused: so the last line read
        // must still be there, byte for byte, where it was. Each line holds
        // a reading of its device's clock, found once in its log: the same
        // line at the same place means no line before it was dropped.
        if let progress, !progress.lastLine.isEmpty {
            guard size >= start else { throw Replaced() }
            var there = [UInt8](repeating: 0, count: progress.lastLine.count)
            let count = there.withUnsafeMutableBytes { pread(fd, $0.baseAddress!, $0.count, off_t(start - $0.count)) }
            guard count == there.count, there == progress.lastLine else { throw Replaced() }
        }
        var bytes = [UInt8](repeating: 0, count: max(0, size - start))
        var filled = 0
        while filled < bytes.count {
            let count = bytes.withUnsafeMutableBytes { pread(fd, $0.baseAddress! + filled, $0.count - filled, off_t(start + filled)) }
            if count < 0, errno == EINTR { continue }
            guard count > 0 else { break }
            filled += count
        }
        bytes.removeLast(bytes.count - filled)
        let hasLine = start > 0
        let whole = (bytes.lastIndex(of: 0x0A).map { $0 + 1 }) ?? 0
        if !hasLine, whole == 0 {
            throw StoreError.corrupted(path: path, reason: bytes.isEmpty ? "the file is empty" : "no whole line in it")
        }
        if whole < bytes.count, bytes[whole] != UInt8(ascii: "{") {
            throw StoreError.corrupted(path: path, reason: "the text after its last line is not the start of a change")
        }
        var number = progress?.lines ?? 0, lineStart = 0
        let indexing = reader.indexedPath == path
        // Every line is read before any is taken: a file is merged whole or
        // not at all (another device's that does not read is left out).
        var read: [IndexedLine] = []
        while lineStart < whole, let end = bytes[lineStart..<whole].firstIndex(of: 0x0A) {
            number += 1
            defer { lineStart = end + 1 }
            let line = Array(bytes[lineStart..<end])
            if line.allSatisfy({ $0 == 0x20 || $0 == 0x09 || $0 == 0x0D }) { continue }
            do {
                read.append(IndexedLine(bytes: indexing ? line : [], line: try ChangeLine.decodeLine(line)))
            } catch {
                throw StoreError.corrupted(path: path, reason: "line \(number): \(error.reason)")
            }
        }
        if indexing, progress == nil { reader.indexed = [] }
        for line in read { reader.take(line.line) }
        if indexing { reader.indexed += read }
        var lastLine = progress?.lastLine ?? []
        if whole > 0 {
            let lineStart = bytes[..<(whole - 1)].lastIndex(of: 0x0A).map { $0 + 1 } ?? 0
            lastLine = Array(bytes[lineStart..<whole])
        }
        let hash = bytes.withUnsafeBufferPointer { ContentHash.of(UnsafeBufferPointer(rebasing: $0[..<whole]), continuing: progress?.hash ?? ContentHash.start) }
        return Progress(stamp: POSIXFiles.FileStamp(info), consumed: start + whole, lines: number, lastLine: lastLine, hash: hash,
                        stampedAt: stampedAt)
    }
}
