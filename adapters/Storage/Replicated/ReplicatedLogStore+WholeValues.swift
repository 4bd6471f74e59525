#if canImport(Glibc)
import Domain
import FoundationEssentials
import JSONDocument
#endif

/// A suite merged per whole value (the session slot): the values a write
/// replaced without having seen them (two devices that each started a
/// session before they synced), the value a key last held, the device that
/// removed it, and the line that says an unseen value was dealt with. Read
/// from the merge, or from the snapshot, which keeps these per key.
extension ReplicatedLogStore {
    /// The whole values of `key` (in a suite merged per whole value) that
    /// another value replaced without having seen them, oldest first: what
    /// two devices wrote before either saw the other's (two sessions
    /// started at once). Each stays here until a device `settle`s it.
    public func unseen(_ suite: String, key: String) throws -> [JSONValue] {
        switch try readState(suite) {
        case .merged(let state): Self.unseen(in: state, key: key)
        case .snapshot(let snapshot): snapshot.unseen[key] ?? []
        }
    }

    static func unseen(in state: Merged, key: String) -> [JSONValue] {
        let current = state.records.record(key) != nil ? state.records.stamp(of: key, field: ChangeLine.wholeValue) : nil
        return (state.reader.wholeValues[key] ?? [:])
            .filter { $0.key != current && !state.reader.acknowledged.contains($0.key) && !state.hidden.contains($0.key) }
            .sorted { $0.key < $1.key }.map(\.value)
    }

    /// The whole value `key` last held, also once it was deleted (the
    /// delete hides it; it stays in the log).
    public func lastValue(_ suite: String, key: String) throws -> JSONValue? {
        switch try readState(suite) {
        case .merged(let state): state.records.remains(key).fields[ChangeLine.wholeValue]
        case .snapshot(let snapshot): snapshot.lastValues[key]
        }
    }

    /// The whole value `key` last held, when the change that removed it
    /// (its latest) was another device's. From the snapshot when it serves
    /// the read: an idle command's reconcile asks this every time.
    public func valueRemovedElsewhere(_ suite: String, key: String) throws -> JSONValue? {
        let (removedBy, last): (String?, JSONValue?) = switch try readState(suite) {
        case .merged(let state): (Self.removal(in: state, key: key), state.records.remains(key).fields[ChangeLine.wholeValue])
        case .snapshot(let snapshot): (snapshot.removedBy[key], snapshot.lastValues[key])
        }
        guard let removedBy, removedBy != (try deviceID()) else { return nil }
        return last
    }

    /// Whether some log shows the thing `identity` names (a session's id)
    /// ended (an ended value of it), removed for good (a delete's `ends`),
    /// or replaced knowingly by another thing (two sessions started at once
    /// on two devices: the one that holds replaces the other, which ends).
    /// Merged from the logs, never a snapshot: asked only when a block is
    /// found that the slot's session does not own.
    public func hasEnded(_ suite: String, key: String, identity: String) throws -> Bool {
        guard let ending = endings[suite] else { return false }
        let state = try merged(suite)
        if state.reader.removals[key]?[identity] != nil { return true }
        let values = state.reader.wholeValues[key] ?? [:]
        if values.values.contains(where: { ending.identity($0) == identity && ending.isEnded($0) }) { return true }
        return state.reader.overs.contains { later, earlier in
            guard let replaced = values[earlier], ending.identity(replaced) == identity, let replacing = values[later] else { return false }
            return ending.identity(replacing) != identity
        }
    }

    /// The latest value of the thing `identity` names among the whole
    /// values `key` held; merged from the logs, as `hasEnded`.
    public func lastValue(_ suite: String, key: String, identity: String) throws -> JSONValue? {
        try latest(suite, key: key, identity: identity)?.value
    }

    /// The stamp of that value: which line of which device's log wrote it.
    public func lastStamp(_ suite: String, key: String, identity: String) throws -> HybridTimestamp? {
        try latest(suite, key: key, identity: identity)?.key
    }

    private func latest(_ suite: String, key: String, identity: String) throws -> (key: HybridTimestamp, value: JSONValue)? {
        guard let ending = endings[suite] else { return nil }
        return try merged(suite).reader.wholeValues[key]?.filter { ending.identity($0.value) == identity }.max { $0.key < $1.key }
    }

    /// Whether the thing `identity` names is gone from every log, though
    /// the value of it written at `stamp` was once read here: no log holds
    /// that value or any other of the thing, none is left out, and the log
    /// of the device that wrote it holds a later line. A log drops a value
    /// only under a later line of its own that sets or deletes the same
    /// key (compaction), so that device replaced or removed the thing, and
    /// no device edited it since; an older copy of that log, which holds no
    /// line after the value, tells nothing. Merged from the logs, as
    /// `hasEnded`.
    public func dropped(_ suite: String, key: String, identity: String, at stamp: HybridTimestamp) throws -> Bool {
        guard let ending = endings[suite] else { return false }
        let reader = try merged(suite).reader
        guard reader.unreadable.isEmpty else { return false }
        if (reader.wholeValues[key] ?? [:]).contains(where: { $0.key == stamp || ending.identity($0.value) == identity }) { return false }
        // The lines a reader keeps the stamps of: whole values, lines that
        // name the value they replaced (`over`, `seen`) and removals.
        func later(_ other: HybridTimestamp) -> Bool { other.device == stamp.device && other > stamp }
        return reader.overs.keys.contains(where: later) || reader.wholeValues.values.contains { $0.keys.contains(where: later) }
            || reader.removals.values.contains { $0.values.contains(where: later) }
    }

    /// The device whose change removed `key`, when it holds no value now
    /// (also when its value was removed for good and a late edit of it
    /// came after: `WholeValueEnding`).
    static func removal(in state: Merged, key: String) -> String? {
        if let removed = state.removed[key] { return removed.device }
        guard state.records.record(key) == nil else { return nil }
        return state.records.lastChange(of: key)?.device
    }

    /// The suite as `reader` merged it, an ended value read in place of
    /// any later edit of the same thing, and a thing removed for good read
    /// as removed (`WholeValueEnding`).
    func merging(_ reader: ChangeLogReader, suite: String) -> Merged {
        let values = shapes(suite).values(of: reader.records)
        guard let ending = endings[suite] else { return Merged(reader: reader, values: values) }
        let applied = ending.applied(to: values, reader: reader)
        return Merged(reader: reader, values: applied.values, removed: applied.emptied, hidden: applied.hidden)
    }

    /// Records that the unseen `value` of `key` has been dealt with, so no
    /// device reports it again; the value in the slot does not change.
    public func settle(_ suite: String, key: String, value: JSONValue) throws {
        let device = try deviceID()
        let folder = directory + "/" + device + "/changes"
        try POSIXFiles.ensureDirectory(directory + "/" + device)
        try POSIXFiles.ensureDirectory(folder)
        let lock = try FileLock(path: folder + "/" + suite + ".lock", timeout: lockTimeout)
        let state = try merged(suite)
        // Not the value the key holds now, though it may be equal (the
        // session that holds took the slot as it was): acknowledged, it
        // would be no contender when another device that had not seen it
        // replaced it, and a strict session would vanish with it.
        let current = state.records.record(key) != nil ? state.records.stamp(of: key, field: ChangeLine.wholeValue) : nil
        let stamps = (state.reader.wholeValues[key] ?? [:])
            .filter { $0.value == value && $0.key != current && !state.reader.acknowledged.contains($0.key) }.keys
        guard !stamps.isEmpty else { return }
        let instant = now()
        var clock = HybridClock(device: device, latest: state.reader.latest(notAfter: HybridClock.horizonLimit(now: instant)))
        var lines: [UInt8] = []
        var mark = boot().map { ChangeLine.clockMark(now: instant, boot: $0) }
        for stamp in stamps.sorted() {
            lines += try ChangeLine.encodeSeen(at: clock.tick(now: instant), key: key, seen: stamp, wall: ChangeLine.milliseconds(of: instant),
                                               clock: mark)
            mark = nil
        }
        try ChangeLogAppender.append(lines, path: folder + "/" + suite + ".jsonl", folder: folder, durability: .durable)
        _ = consume lock
        notify(suite)
    }
}
