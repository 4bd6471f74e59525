#if canImport(Glibc)
import Domain
import FoundationEssentials
import Glibc
import JSONDocument
#endif

/// A device's log grows with every write, and every reader parses every
/// log: the session slot alone gains three lines a session (its start, its
/// end, its emptying). So a device rewrites its own log now and then
/// without the lines that a later line of the same log supersedes, which
/// no merge anywhere needs: the merge keeps, per field, the latest value,
/// per set member its latest add and latest remove, per record its latest
/// delete; a device's own lines are in the order of its clock, so a later
/// line of the same field, member or delete always wins over an earlier
/// one, whatever other devices wrote. Only this device's own log is ever
/// rewritten (atomically: a reader sees the old file or the new one, and
/// reads the new one whole); a line that is not all superseded stays whole.
///
/// A dropped line may also say which whole value it replaced knowingly
/// (`over`): that acknowledgment outlives the line as a `seen` line at the
/// line's own stamp. Else a value another device wrote and this one
/// replaced (a session stopped on this device) would read as replaced
/// unseen once the line is gone, and come back as a second session. Only
/// an acknowledgment nothing can need goes: one a kept line makes too, or
/// one of this device's own value that no kept line holds any more (only
/// this log has this device's values, unless a conflict copy of it exists);
/// a `seen` line of such a value goes too. But a dropped value that a kept
/// value (or another device's line) names as the one it replaced still
/// leads back to the values before it: a `seen` line at its stamp names
/// the oldest one its dropped chain reaches (`links`).
extension ReplicatedLogStore {
    /// Whether the compaction of `suite`'s log that an earlier write made
    /// due is to run now, after this write; and whether this write (of
    /// `written`, to a log of `linesBefore` lines) makes one due.
    ///
    /// Every `compactionInterval` lines, superseded ones are dropped (see
    /// `compact`): a log that only grew would
    /// make every read slower with every session. In a whole-value
    /// suite, also whenever a value is written where there was none (a
    /// session started): the last one's lines are all superseded then,
    /// and the `stop` that follows, what a person waits on to get their
    /// sites back, reads three lines and compacts nothing. Not at once,
    /// though: at this process's next write of the suite, or when it is
    /// done with the store, so that no read of this process parses the
    /// rewritten log again (a `stop` writes the slot twice: compacting
    /// at the first write cost its second a whole read, 0.25 M
    /// instructions).
    func noteCompaction(_ suite: String, linesBefore before: Int, written: WrittenLines) -> Bool {
        let count = written.bytes.count { $0 == 0x0A }
        let interval = compactionInterval > 0 ? compactionIntervals[suite] ?? compactionInterval : 0
        let due = compactionDue.withLock { $0.remove(suite) != nil }
        if interval > 0, (before + count) / interval > before / interval || (shapes(suite).wholeValues && written.began && before >= 2) {
            compactionDue.withLock { _ = $0.insert(suite) }
        }
        return due
    }

    /// Rewrites `device`'s log of `suite` (at `path`) without its
    /// superseded lines when that drops at least half of them; `copies`: a
    /// conflict copy of this log exists. Runs under the suite's lock.
    /// Returns how many lines were dropped.
    @discardableResult
    func compact(_ suite: String, at path: String, device: String) throws -> Int {
        let folder = directory + "/" + device + "/changes/", files = logFiles(of: suite)
        let copies = files.contains { $0 != path && $0.hasPrefix(folder) }
        defer { forgetReader(of: suite) }   // the log is another file now
        let kept = keptReader(suite)
        // The whole values every log holds, if this process read them all as
        // they are now: an acknowledgment of another device's value that no
        // log holds any more is needed by no reader (a device that stops
        // another's sessions kept one line per session stopped, for ever).
        var held: Set<HybridTimestamp>?
        if let kept {
            var stamps: [String: POSIXFiles.FileStamp] = [:]
            for file in files { if let stamp = try? POSIXFiles.FileStamp.current(file) { stamps[file] = stamp } }
            // (A loop, not `flatMap(\.keys)`: a key path of a generic type
            // is built at run time, 0.28 M instructions the first time.)
            if kept.isCurrent(stamps) {
                var stampsHeld: Set<HybridTimestamp> = []
                for values in kept.wholeValues.values { for stamp in values.keys { stampsHeld.insert(stamp) } }
                held = stampsHeld
            }
        }
        return try compact(path, suite: suite, device: device, copies: copies, kept: kept, held: held, ending: endings[suite],
                           replaced: Self.replacedKnowingly(by: kept, device: device, ending: endings[suite]))
    }

    /// The stamps of this device's whole values that a value of another
    /// thing was written over (two sessions started at once: the one that
    /// holds took the slot from this device's, which ended). Such a line
    /// stays: without it, the `over` names a value no log holds, and the
    /// session it ended, still blocked on this machine, would end nowhere
    /// (`WholeValueEnding.replacements`, `SessionRepository.hasEnded`).
    static func replacedKnowingly(by reader: ChangeLogReader?, device: String, ending: WholeValueEnding?) -> Set<HybridTimestamp> {
        guard let reader, let ending, !reader.overs.isEmpty else { return [] }
        var replaced: Set<HybridTimestamp> = []
        for values in reader.wholeValues.values where values.count > 1 {
            for (later, value) in values {
                guard let earlier = reader.overs[later], earlier.device == device, let before = values[earlier],
                      ending.identity(before) != ending.identity(value) else { continue }
                replaced.insert(earlier)
            }
        }
        return replaced
    }

    /// `kept`: what this process read of the suite; its lines of `path`,
    /// if they are the whole file as it is, are taken as they were read.
    /// `held`: the stamps of the whole values in every log, when known.
    /// `ending`: the suite's (`WholeValueEnding`), whose last ended value
    /// stays, for a late edit of that session to meet.
    @discardableResult
    private func compact(_ path: String, suite: String, device: String, copies: Bool, kept: ChangeLogReader?, held: Set<HybridTimestamp>?,
                         ending: WholeValueEnding?, replaced: Set<HybridTimestamp>) throws -> Int {
        var lines: [[UInt8]] = [], decoded: [ChangeLine.Decoded] = []
        // The whole file, as this process read it and nothing since: not read again.
        if let kept, kept.indexedPath == path, let progress = kept.files[path], kept.indexed.count == progress.lines,
           let now = try? POSIXFiles.FileStamp.current(path), now == progress.stamp, now.size == Int64(progress.consumed) {
            lines = kept.indexed.map { $0.bytes }
            decoded = kept.indexed.map { $0.line }
        } else {
            guard let bytes = try POSIXFiles.read(path, limit: ChangeLogReader.readLimit), let last = bytes.lastIndex(of: 0x0A) else { return 0 }
            // Cut at each newline found by `firstIndex` (`split` called a
            // closure per byte: a third of a compaction).
            var start = 0
            while start <= last, let end = bytes[start...last].firstIndex(of: 0x0A) {
                if end > start { lines.append(Array(bytes[start..<end])) }
                start = end + 1
            }
            for line in lines {
                // A line it cannot read is left for doctor: nothing is rewritten.
                // Whole values are not parsed (unless whether one is an
                // ending matters): which field a line sets is all that tells
                // what supersedes what.
                guard let one = try? ChangeLine.decodeLine(line, values: ending != nil) else { return 0 }
                decoded.append(one)
            }
        }
        var later = Superseding(), laterEnding = false
        var removed: Set<String> = []   // the things the kept removals removed
        var keptForLateEdits = 0         // lines kept only for that
        var keep = [Bool](repeating: true, count: lines.count)
        for index in decoded.indices.reversed() {
            let changes = decoded[index].changes
            // The last few removals for good stay, and the last ending unless
            // one of them removed its thing: a pause made unseen of that
            // stop or cancel, on a device that syncs late, must still meet
            // it (`WholeValueEnding`). A removal is a short line; an ending
            // holds the whole session.
            var keptAnyway = false
            defer { if keptAnyway { keptForLateEdits += 1 } }
            if let ends = decoded[index].ends, removed.count < Self.removalsKept, removed.insert(ends).inserted { keptAnyway = true }
            if replaced.contains(decoded[index].at) { keptAnyway = true }
            if let rule = ending {
                for change in changes {
                    guard case .set(ChangeLine.wholeValue, let value?) = change.kind, rule.isEnded(value) else { continue }
                    if !laterEnding, !removed.contains(rule.identity(value) ?? "") { keptAnyway = true }
                    laterEnding = true
                }
            }
            if !changes.isEmpty, changes.allSatisfy(later.supersedes), !keptAnyway { keep[index] = false }
            changes.forEach { later.note($0) }
        }
        let gone = Self.valuesGone(decoded, keep: keep, device: device, copies: copies, held: held)
        let named = Self.namedAsReplaced(decoded, keep: keep, device: device, by: held == nil ? nil : kept)
        for index in decoded.indices where decoded[index].changes.isEmpty {
            // A `seen` line that links a kept value back to the ones before
            // it stays, whatever it acknowledges (`links`).
            if let stamp = decoded[index].acknowledged, gone(stamp), !named.contains(decoded[index].at) { keep[index] = false }
        }
        let dropped = keep.filter { !$0 }.count
        // Worth a rewrite once it drops half the lines it could drop (the
        // removals and ending kept for late edits stay in any case).
        guard dropped * 2 >= lines.count - keptForLateEdits, dropped > 0 else { return 0 }
        var seen = try Self.acknowledgmentsKept(decoded, keep: keep, gone: gone)
        for (index, line) in try Self.links(decoded, keep: keep, seen: seen, named: named) { seen[index] = line }
        var kept: [UInt8] = []
        for (index, line) in lines.enumerated() {
            if keep[index] { kept += line + [0x0A] } else if let seen = seen[index] { kept += seen }
        }
        _ = try POSIXFiles.writeAtomically(kept, to: path)
        // Every line of it reads: it is this device's good copy too.
        keepGoodCopy(of: suite, bytes: kept)
        return dropped
    }

    /// How many of its last removals for good (`ends`) a log keeps past
    /// compaction: an edit of any of those things, made on a device that
    /// syncs late, does not bring it back.
    public static let removalsKept = 2

    /// A reader that keeps this device's own log of `suite` line by line
    /// (for `compact`).
    func newReader(_ suite: String) -> ChangeLogReader {
        var reader = ChangeLogReader()
        if let device = try? deviceID() {
            reader.indexedPath = directory + "/" + device + "/changes/" + suite + ".jsonl"
            reader.ownFolder = directory + "/" + device + "/"
        }
        return reader
    }

    /// The reader this process keeps of `suite`, if any.
    func keptReader(_ suite: String) -> ChangeLogReader? {
        cache.withLock { $0[suite] }?.reader
    }

    /// Drops it: the next read reads every log of `suite` again.
    func forgetReader(of suite: String) {
        cache.withLock { _ = $0.removeValue(forKey: suite) }
    }

    /// Whether a whole value's stamp names a value no reader can find any
    /// more, so that nothing needs to say it was replaced knowingly: one of
    /// this device's that no kept line holds (unless a conflict copy of
    /// this log may hold it), or, when `held` tells, one no log holds.
    static func valuesGone(_ decoded: [ChangeLine.Decoded], keep: [Bool], device: String,
                           copies: Bool, held: Set<HybridTimestamp>?) -> (HybridTimestamp) -> Bool {
        var kept: Set<HybridTimestamp> = []
        for index in decoded.indices where keep[index] {
            for change in decoded[index].changes {
                if case .set(ChangeLine.wholeValue, _?) = change.kind { kept.insert(change.at) }
            }
        }
        return { stamp in
            if kept.contains(stamp) { return false }
            if stamp.device == device, !copies { return true }
            return held.map { !$0.contains(stamp) } ?? false
        }
    }

    /// The stamps that a kept line of this log, or a line of another
    /// device's log (when `reader` read them all as they are), names as the
    /// value it replaced (`over`, `seen`): the links of the chains that
    /// tell an edit made unseen of a removal (`WholeValueEnding.removed`).
    static func namedAsReplaced(_ decoded: [ChangeLine.Decoded], keep: [Bool], device: String,
                                by reader: ChangeLogReader?) -> Set<HybridTimestamp> {
        var named: Set<HybridTimestamp> = []
        for index in decoded.indices where keep[index] {
            guard let stamp = decoded[index].acknowledged,
                  decoded[index].changes.contains(where: { if case .set(ChangeLine.wholeValue, _?) = $0.kind { true } else { false } }) else { continue }
            named.insert(stamp)
        }
        for (at, over) in reader?.overs ?? [:] where at.device != device { named.insert(over) }
        return named
    }

    /// For each dropped line that a chain of `over`s still needs, by its
    /// index: a `seen` line at its stamp that names the oldest value its
    /// own chain of dropped lines leads back to. A value's edit names the
    /// value it replaced (`over`), and a removal for good removes every
    /// edit whose chain leads back to a value written before it
    /// (`WholeValueEnding.removed`): a device that paused, allowed and
    /// resumed a session it had not seen cancelled wrote a chain of edits,
    /// and dropping the middle ones cut its last edit off from the value
    /// before the cancel, which then ran the session again. The stamps of
    /// a chain only fall, so naming its oldest link keeps what it tells,
    /// with one short line per value a kept line names, not one per edit.
    static func links(_ decoded: [ChangeLine.Decoded], keep: [Bool], seen: [Int: [UInt8]],
                      named: Set<HybridTimestamp>) throws -> [Int: [UInt8]] {
        var dropped: [HybridTimestamp: Int] = [:]
        for index in decoded.indices where !keep[index] && decoded[index].acknowledged != nil { dropped[decoded[index].at] = index }
        var named = named
        // A `seen` line kept or written names one too.
        for index in decoded.indices where seen[index] != nil || keep[index] && decoded[index].changes.isEmpty {
            if let stamp = decoded[index].acknowledged { named.insert(stamp) }
        }
        var links: [Int: [UInt8]] = [:]
        for stamp in named {
            guard let index = dropped[stamp], seen[index] == nil, var oldest = decoded[index].acknowledged else { continue }
            var hops = 0
            while let earlier = dropped[oldest], let before = decoded[earlier].acknowledged, before < oldest, hops < decoded.count {
                oldest = before
                hops += 1
            }
            links[index] = try ChangeLine.encodeSeen(at: stamp, key: decoded[index].key, seen: oldest)
        }
        return links
    }

    /// For each dropped line whose acknowledgment must outlive it, by its
    /// index: the `seen` line that keeps it (see above).
    static func acknowledgmentsKept(_ decoded: [ChangeLine.Decoded], keep: [Bool],
                                    gone: (HybridTimestamp) -> Bool) throws -> [Int: [UInt8]] {
        var acknowledged = Set(decoded.indices.filter { keep[$0] }.compactMap { decoded[$0].acknowledged })
        var seen: [Int: [UInt8]] = [:]
        for index in decoded.indices where !keep[index] {
            guard let stamp = decoded[index].acknowledged, !acknowledged.contains(stamp), !gone(stamp) else { continue }
            seen[index] = try ChangeLine.encodeSeen(at: decoded[index].at, key: decoded[index].key, seen: stamp)
            acknowledged.insert(stamp)
        }
        return seen
    }
}

/// What later lines of a log set: a change is superseded when a later one
/// sets the same field, adds or removes the same member, or deletes the
/// same record.
private struct Superseding {
    struct Key: Hashable {
        var record: String
        var field: String
        var element: JSONValue?
    }

    var fields: Set<Key> = []
    var members: Set<Key> = []
    var deletes: Set<String> = []

    func supersedes(_ change: RecordChange<JSONValue>) -> Bool {
        switch change.kind {
        case .set(let field, _): fields.contains(Key(record: change.record, field: field))
        case .add(let field, let element), .remove(let field, let element):
            members.contains(Key(record: change.record, field: field, element: element))
        case .delete: deletes.contains(change.record)
        }
    }

    mutating func note(_ change: RecordChange<JSONValue>) {
        switch change.kind {
        case .set(let field, _): fields.insert(Key(record: change.record, field: field))
        case .add(let field, let element), .remove(let field, let element):
            members.insert(Key(record: change.record, field: field, element: element))
        case .delete: deletes.insert(change.record)
        }
    }
}
