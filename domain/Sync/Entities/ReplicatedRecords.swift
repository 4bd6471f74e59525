/// The records that every device's changes add up to: a state-based CRDT in
/// which applying changes in any order, any number of times, gives the same
/// records (the property `ReplicatedRecordsConvergenceTests` checks over
/// every interleaving). The merge rules (docs/storage.md, "Merge rules"):
///
/// - **A field** keeps the value of its latest change by the hybrid clock
///   (last writer wins, per field: a rename and a new target both hold).
/// - **A set** (a group's targets) keeps, per element, its latest add or
///   remove: two devices adding different elements both hold.
/// - **A delete** hides the record from every change ordered before it; a
///   change ordered after it (made on a device that had not seen the
///   delete) brings the record back whole, with its latest fields, so no
///   edit is silently lost.
public struct ReplicatedRecords<Value: Hashable & Sendable>: Equatable, Sendable {
    struct Register: Equatable, Sendable {
        var at: HybridTimestamp
        var value: Value?
    }

    struct Membership: Equatable, Sendable {
        var added: HybridTimestamp?
        var removed: HybridTimestamp?
        mutating func add(_ at: HybridTimestamp) {
            if added.map({ at > $0 }) ?? true { added = at }
        }

        mutating func remove(_ at: HybridTimestamp) {
            if removed.map({ at > $0 }) ?? true { removed = at }
        }

        var isMember: Bool {
            guard let added else { return false }
            return removed.map { added > $0 } ?? true
        }
    }

    struct Record: Equatable, Sendable {
        var fields: [String: Register] = [:]
        var sets: [String: [Value: Membership]] = [:]
        var deleted: HybridTimestamp?
        /// The latest change other than a delete.
        var edited: HybridTimestamp?
        var isLive: Bool {
            guard let edited else { return false }
            return deleted.map { edited > $0 } ?? true
        }
    }

    private var records: [String: Record] = [:]
    /// The latest change applied, by the hybrid clock.
    public private(set) var latest: HybridTimestamp?

    public init() {}

    /// Applies `change`. Commutative and idempotent: the order changes
    /// arrive in, and repeats, make no difference.
    public mutating func apply(_ change: RecordChange<Value>) {
        if latest.map({ change.at > $0 }) ?? true { latest = change.at }
        // In place: a copy of the record taken out of the dictionary would
        // copy its fields and sets at every change.
        records[change.record, default: Record()].apply(change.kind, at: change.at)
    }

    /// Applies every change of `changes`.
    public mutating func apply(_ changes: some Sequence<RecordChange<Value>>) {
        for change in changes { apply(change) }
    }

    /// The keys of the records that exist, sorted.
    public var keys: [String] {
        records.filter { $0.value.isLive }.keys.sorted()
    }

    /// A record as it stands: its fields with a value, and its sets'
    /// members in the order they were (last) added; nil if the record does
    /// not exist (never made, or deleted).
    public func record(_ key: String) -> RecordFields<Value>? {
        guard let record = records[key], record.isLive else { return nil }
        return Self.content(of: record)
    }

    private static func content(of record: Record) -> RecordFields<Value> {
        var fields: [String: Value] = [:]
        for (name, register) in record.fields { if let value = register.value { fields[name] = value } }
        var sets: [String: [Value]] = [:]
        for (name, members) in record.sets {
            sets[name] = members.filter { $0.value.isMember }.sorted { $0.value.added! < $1.value.added! }.map(\.key)
        }
        return RecordFields(fields: fields, sets: sets)
    }

    /// What `key` holds, deleted or not: what a writer must clear when it
    /// makes the record again, so no field of its earlier life comes back.
    public func remains(_ key: String) -> RecordFields<Value> {
        guard let record = records[key] else { return RecordFields() }
        return Self.content(of: record)
    }

    /// The stamp of the value `field` of `key` holds, live or deleted.
    public func stamp(of key: String, field: String) -> HybridTimestamp? {
        records[key]?.fields[field]?.at
    }

    /// The latest change applied whose wall time is at most `limit` (ms):
    /// what a device's clock may take for its own, leaving out a stamp far
    /// ahead of it (`HybridClock.horizon`). The usual case, nothing that
    /// far ahead, costs one comparison.
    public func latest(notAfter limit: Int64) -> HybridTimestamp? {
        guard let latest, latest.milliseconds > limit else { return latest }
        var best: HybridTimestamp?
        func consider(_ stamp: HybridTimestamp?) {
            if let stamp, stamp.milliseconds <= limit, best.map({ stamp > $0 }) ?? true { best = stamp }
        }
        for record in records.values {
            consider(record.deleted)
            for register in record.fields.values { consider(register.at) }
            for members in record.sets.values {
                for membership in members.values {
                    consider(membership.added)
                    consider(membership.removed)
                }
            }
        }
        return best
    }

    /// When `key` last changed (a delete included), for `sync status`.
    public func lastChange(of key: String) -> HybridTimestamp? {
        guard let record = records[key] else { return nil }
        return [record.edited, record.deleted].compactMap { $0 }.max()
    }
}

/// One record's content as `ReplicatedRecords.record(_:)` returns it.
public struct RecordFields<Value: Hashable & Sendable>: Equatable, Sendable {
    public var fields: [String: Value]
    public var sets: [String: [Value]]

    public init(fields: [String: Value] = [:], sets: [String: [Value]] = [:]) {
        self.fields = fields
        self.sets = sets
    }
}

extension ReplicatedRecords.Record {
    fileprivate mutating func apply(_ kind: RecordChange<Value>.Kind, at: HybridTimestamp) {
        switch kind {
        case .set(let field, let value):
            if fields[field].map({ at > $0.at }) ?? true { fields[field] = ReplicatedRecords.Register(at: at, value: value) }
            markEdited(at)
        case .add(let field, let element):
            sets[field, default: [:]][element, default: ReplicatedRecords.Membership()].add(at)
            markEdited(at)
        case .remove(let field, let element):
            sets[field, default: [:]][element, default: ReplicatedRecords.Membership()].remove(at)
            markEdited(at)
        case .delete:
            if deleted.map({ at > $0 }) ?? true { deleted = at }
        }
    }

    fileprivate mutating func markEdited(_ at: HybridTimestamp) {
        if edited.map({ at > $0 }) ?? true { edited = at }
    }
}
