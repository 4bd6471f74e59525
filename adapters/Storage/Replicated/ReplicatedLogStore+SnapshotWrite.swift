#if canImport(Glibc)
import Domain
import FoundationEssentials
import Glibc
import JSONDocument
#endif

/// A write that starts from the suite's snapshot instead of merging every
/// line of every log (issue 45): `schedule add` with 1,000 schedules
/// parsed and merged all 1,000 records under the lock to change one, then
/// made the snapshot again from that merge. A suite merged per field
/// (groups, schedules, settings, allowances; not the session slot) needs,
/// to write the changes that turn a record into a new value, only that
/// record's lines and the clock's latest reading: the snapshot, checked
/// under the lock against every log's bytes, gives the values and the
/// reading, and the lines of the records the write changes are the only
/// ones parsed. The values it serves of those records are checked against
/// their lines first: a snapshot that does not say what its lines say (a
/// hand edit) is never written back into a log.
extension ReplicatedLogStore {
    /// The lines one write appends, and what they hold.
    struct WrittenLines {
        var bytes: [UInt8] = []
        var decoded: [ChangeLine.Decoded] = []
        /// A value was written where there was none (a session started).
        var began = false
    }

    /// What a write starts from when a snapshot serves the suite: the
    /// snapshot, the stamps it was checked against, and each log's whole
    /// lines as it was made from them (read again and hashed under the
    /// lock, so the lines parsed are exactly those merged into it).
    struct SnapshotBase {
        var snapshot: SuiteSnapshot
        var stamps: [String: POSIXFiles.FileStamp]
        var logs: [(path: String, bytes: [UInt8])]
    }

    /// How a write from a snapshot ended: done (`body` ran and what it
    /// changed is written), or not begun because the snapshot turned out
    /// not to be the logs' (then `update` merges them and runs `body` on
    /// that).
    enum SnapshotWrite<Result> {
        case done(Result)
        case stale
    }

    /// The keys whose values differ between `before` and `after`, sorted.
    static func changedKeys(from before: [String: JSONValue], to after: [String: JSONValue]) -> [String] {
        var keys: [String] = []
        for (key, value) in after where before[key] != value { keys.append(key) }
        for key in before.keys where after[key] == nil { keys.append(key) }
        return keys.sorted()
    }

    /// The base of a write of `suite` (its logs `files`, stamped `stamps`
    /// under the lock), when one can start from a snapshot: a suite merged
    /// per field, not merged in this process already (reading on from that
    /// costs less), whose snapshot is current and knows the latest stamp.
    func snapshotBase(_ suite: String, files: [String], stamps: [String: POSIXFiles.FileStamp]) -> SnapshotBase? {
        guard !shapes(suite).wholeValues, endings[suite] == nil else { return nil }
        if let cached = cache.withLock({ $0[suite] }), cached.reader.canContinue(with: stamps) { return nil }
        guard let snapshot = currentSnapshot(suite, files: files, stamps: stamps), snapshot.latest != nil else { return nil }
        var logs: [(path: String, bytes: [UInt8])] = []
        for source in snapshot.sources {
            let path = directory + "/" + source.name
            // Read and hashed by the check of the snapshot, at the stamp it
            // has now: as the snapshot is served while the stamps hold.
            if let checked = checkedLogs.withLock({ $0[path] }), checked.stamp == stamps[path], checked.length == source.length {
                logs.append((path, Array(checked.bytes.prefix(source.length))))
                continue
            }
            guard var bytes = try? POSIXFiles.read(path, limit: ChangeLogReader.readLimit), bytes.count >= source.length else { return nil }
            bytes.removeLast(bytes.count - source.length)
            // A file whose settled stamp is still the snapshot's holds the
            // bytes hashed then (`SuiteSnapshot.check` reads none of it);
            // any other is hashed: another device's may have been replaced.
            if source.stamp == nil || source.stamp != stamps[path] {
                guard bytes.withUnsafeBufferPointer({ ContentHash.of($0) }) == source.hash else { return nil }
            }
            logs.append((path, bytes))
        }
        return SnapshotBase(snapshot: snapshot, stamps: stamps, logs: logs)
    }

    /// Runs `body` on the snapshot's values and appends what it changed to
    /// `path` (this device's log, whose lock the caller holds), parsing
    /// only the changed records' lines; the snapshot, brought up to date,
    /// serves this process's next reads and is written when it is done.
    func writeFromSnapshot<Result>(_ base: SnapshotBase, suite: String, path: String, device: String, durability: WriteDurability,
                                   _ body: (inout [String: JSONValue]) throws -> Result) throws -> SnapshotWrite<Result> {
        let instant = now()
        // A stamp far ahead of this clock is not the clock's (`latest(notAfter:)`),
        // and which earlier one is, only the logs tell.
        guard let values = try? base.snapshot.values.values(), let latest = base.snapshot.latest,
              latest.milliseconds <= HybridClock.horizonLimit(now: instant) else { return .stale }
        var after = values
        let result = try body(&after)
        let keys = Self.changedKeys(from: values, to: after)
        guard !keys.isEmpty else { return .done(result) }
        let shape = shapes(suite)
        guard var records = Self.records(of: Set(keys), in: base.logs),
              keys.allSatisfy({ values[$0] == records.record($0).flatMap(shape.value(of:)) }) else {
            // Not what its lines say: no longer served, and made again from
            // the logs when this process is done.
            served.withLock { _ = $0.removeValue(forKey: suite) }
            changedSuites.withLock { _ = $0.insert(suite) }
            return .stale
        }
        var clock = HybridClock(device: device, latest: latest)
        let written = try changeLines(suite, keys: keys, from: values, to: after, records: &records, clock: &clock, instant: instant, merged: nil)
        try ChangeLogAppender.append(written.bytes, path: path, folder: POSIXFiles.parentDirectory(of: path), durability: durability)
        let own = base.logs.first { $0.path == path }?.bytes ?? []
        let due = noteCompaction(suite, linesBefore: own.count { $0 == 0x0A }, written: written)
        var changed = values
        for key in keys { changed[key] = records.record(key).flatMap(shape.value(of:)) }
        keepSnapshot(written, to: path, after: base, own: own, values: changed, changed: Set(keys), suite: suite)
        // An economy only: the write above stands whatever becomes of it.
        if due { _ = try? compact(suite, at: path, device: device) }
        wroteSuites.withLock { _ = $0.insert(suite) }
        changedSuites.withLock { _ = $0.insert(suite) }
        notify(suite)
        return .done(result)
    }

    /// The records named `keys` as the lines of `logs` make them, every
    /// other line passed over by its key alone; nil if a line does not
    /// read (it did when the snapshot was made: the snapshot is not the
    /// logs').
    static func records(of keys: Set<String>, in logs: [(path: String, bytes: [UInt8])]) -> ReplicatedRecords<JSONValue>? {
        var records = ReplicatedRecords<JSONValue>()
        // Each key's bytes, when JSON writes it as it is (no character it
        // escapes): a line without a single escape holds every string of
        // it as it is, so one that holds none of these bytes names none of
        // these keys, and is passed over without being scanned.
        let plain = keys.allSatisfy { $0.utf8.allSatisfy { $0 >= 0x20 && $0 != UInt8(ascii: "\"") && $0 != UInt8(ascii: "\\") } }
        let needles = plain ? keys.map { Array($0.utf8) } : nil
        for log in logs {
            let found: Bool = log.bytes.withUnsafeBufferPointer { buffer in
                var start = 0
                while start < buffer.count, let end = buffer[start...].firstIndex(of: 0x0A) {
                    defer { start = end + 1 }
                    let line = UnsafeBufferPointer(rebasing: buffer[start..<end])
                    if let needles, !line.isEmpty, memchr(line.baseAddress!, Int32(UInt8(ascii: "\\")), line.count) == nil,
                       !needles.contains(where: { Self.find($0, in: line) }) { continue }
                    if line.allSatisfy({ $0 == 0x20 || $0 == 0x09 || $0 == 0x0D }) { continue }
                    let key: String?
                    do { key = try LineMembers.key(of: line) } catch { return false }
                    guard let key, keys.contains(key) else { continue }
                    guard let decoded = try? ChangeLine.decodeLine(Array(line)) else { return false }
                    records.apply(decoded.changes)
                }
                return true
            }
            guard found else { return nil }
        }
        return records
    }

    /// Whether `needle` (not empty) occurs in `text`: `memchr` to each place
    /// its first byte is, then a compare.
    static func find(_ needle: [UInt8], in text: UnsafeBufferPointer<UInt8>) -> Bool {
        guard let first = needle.first, let base = text.baseAddress else { return needle.isEmpty }
        var offset = 0
        while text.count - offset >= needle.count,
              let found = memchr(base + offset, Int32(first), text.count - offset - needle.count + 1) {
            let at = base.distance(to: found.assumingMemoryBound(to: UInt8.self))
            if memcmp(base + at, needle, needle.count) == 0 { return true }
            offset = at + 1
        }
        return false
    }

    /// Keeps the snapshot `base` with the lines `written` just appended to
    /// `path` (whose whole lines were `own`) and the values of the records
    /// `changed`, for this process's next reads and its teardown, when the
    /// file is exactly `own` plus those lines; else the next read looks at
    /// the logs again. The log as it is now is kept too, for the good copy.
    private func keepSnapshot(_ written: WrittenLines, to path: String, after base: SnapshotBase, own: [UInt8],
                              values: [String: JSONValue], changed: Set<String>, suite: String) {
        served.withLock { _ = $0.removeValue(forKey: suite) }
        guard let stamp = try? POSIXFiles.FileStamp.current(path), stamp.size == Int64(own.count + written.bytes.count) else { return }
        if let before = base.stamps[path], before.device != stamp.device || before.inode != stamp.inode { return }
        let name = String(path.dropFirst(directory.count + 1))
        var snapshot = base.snapshot
        let previous = snapshot.sources.first { $0.name == name }
        let hash = written.bytes.withUnsafeBufferPointer { ContentHash.of($0, continuing: previous?.hash ?? ContentHash.start) }
        snapshot.sources = snapshot.sources.filter { $0.name != name }
            + [SuiteSnapshot.Source(name: name, length: own.count + written.bytes.count, hash: hash)]
        snapshot.values = SnapshotValues(values, unchangedFrom: base.snapshot.values, changed: changed)
        for line in written.decoded {
            for change in line.changes where snapshot.latest.map({ change.at > $0 }) ?? true { snapshot.latest = change.at }
        }
        var stamps = base.stamps
        stamps[path] = stamp
        served.withLock { $0[suite] = (stamps, snapshot) }
        goodLogs.withLock { $0[suite] = (stamp, own + written.bytes) }
    }

    /// The lines of one write: per key of `keys` (those whose value
    /// `after` changes from `before`, in order), the changes that make
    /// `records` hold the new value, stamped by `clock` and applied to
    /// `records` as they are made. `merged`: the suite as merged from
    /// every log, which a whole-value suite's `over` needs (nil: a write
    /// that started from a snapshot, of a suite merged per field).
    func changeLines(_ suite: String, keys: [String], from before: [String: JSONValue], to after: [String: JSONValue],
                     records: inout ReplicatedRecords<JSONValue>, clock: inout HybridClock, instant: Date, merged state: Merged?) throws -> WrittenLines {
        let shape = shapes(suite)
        var written = WrittenLines()
        let wall = ChangeLine.milliseconds(of: instant)
        var mark = boot().map { ChangeLine.clockMark(now: instant, boot: $0) }
        for key in keys {
            if before[key] == nil { written.began = true }
            let kinds = shape.changes(to: after[key], of: key, in: records)
            guard !kinds.isEmpty else { continue }
            let at = clock.tick(now: instant, count: kinds.count, after: records.lastChange(of: key))
            // A whole value names the one it replaces: one this device has
            // seen (`unseen` finds those no device has).
            var over = shape.wholeValues && records.record(key) != nil ? records.stamp(of: key, field: ChangeLine.wholeValue) : nil
            // Into an empty slot, a value equal to an unseen one (`unseen`)
            // is that one taken back (a session another device started at
            // the same time, which runs again), not a new start: it names it,
            // so a removal of it made elsewhere meanwhile still holds
            // (`WholeValueEnding`). One seen since (a removal named it) is
            // made again: it holds (a schedule's interval, one id everywhere).
            if shape.wholeValues, over == nil, let new = after[key], let state {
                over = state.reader.wholeValues[key]?.filter {
                    $0.value == new && !state.reader.acknowledged.contains($0.key) && !state.hidden.contains($0.key)
                }.keys.max()
            }
            let changes = kinds.enumerated().map { RecordChange(at: at.advanced(by: $0.offset), record: key, kind: $0.element) }
            for change in changes { records.apply(change) }
            let ends = after[key] == nil ? before[key].flatMap { endings[suite]?.identity($0) } : nil
            written.bytes += try ChangeLine.encode(at: at, key: key, kinds, over: over, ends: ends, wall: wall, clock: mark)
            mark = nil
            written.decoded.append(ChangeLine.Decoded(key: key, at: at, changes: changes, acknowledged: over, ends: ends))
        }
        return written
    }
}
