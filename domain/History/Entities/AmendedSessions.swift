import FoundationEssentials
import RetimeSession
import RetimeSync

/// Every device's amendments of ended sessions, merged per field by the
/// hybrid clock with the rules of `ReplicatedRecords` (docs/history.md,
/// "Several devices"):
///
/// - each field (`SessionChanges.Field`) takes the value of its latest
///   amendment by the hybrid clock; the tags are a set, each tag as its
///   latest add or remove says;
/// - a whole revision (`HistoryAmendment.revise`) sets every field and the
///   whole tag set at its reading;
/// - a deletion hides every amendment ordered before it; one ordered after
///   it (made where the deletion had not been seen) brings the session
///   back with its latest fields.
///
/// The result depends only on the set of amendments, never on the order
/// they are read in (`AmendedSessionsConvergenceTests`).
public struct AmendedSessions: Sendable {
    /// A register's value: the session as an amendment left it (the field
    /// is read from it), or one tag.
    enum Value: Hashable, Sendable {
        case session(Session)
        case tag(String)
    }

    static let tagsField = "tags"

    private var records = ReplicatedRecords<Value>()
    /// Per id, the session of its latest amendment other than a deletion:
    /// the base of the fields no amendment set.
    private var bases: [SessionID: (at: HybridTimestamp, session: Session)] = [:]
    /// Per id, the reading of its latest whole revision.
    private var wholes: [SessionID: HybridTimestamp] = [:]
    /// Per id, every tag an amendment added or removed.
    private var mentioned: [SessionID: Set<String>] = [:]
    /// Per id, its latest deletion. Kept beside the records, not in them,
    /// with `ReplicatedRecords`' rule (the session lives if its latest
    /// edit orders after its latest deletion): an undone import deletes
    /// 100,000 sessions that no edit mentions, and those need no record.
    private var deletions: [SessionID: HybridTimestamp] = [:]
    private var latestDeletion: HybridTimestamp?
    /// Whole revisions, applied once every tag they must clear is known.
    private var pendingWholes: [(at: HybridTimestamp, session: Session)] = []

    public init() {}

    public init(_ amendments: some Sequence<(amendment: HistoryAmendment, at: HybridTimestamp)>) {
        self.init()
        for entry in amendments { add(entry.amendment, at: entry.at) }
    }

    /// The latest reading among the amendments: what a device's hybrid
    /// clock must observe before it stamps its next amendment.
    public var latest: HybridTimestamp? { [records.latest, latestDeletion].compactMap { $0 }.max() }

    /// The same, leaving out readings whose wall time is beyond `limit`
    /// (ms): what a device's clock may adopt (`HybridClock.horizon`).
    public func latest(notAfter limit: Int64) -> HybridTimestamp? {
        let deletion = latestDeletion.flatMap { $0.milliseconds <= limit ? $0 : deletions.values.filter { $0.milliseconds <= limit }.max() }
        return [records.latest(notAfter: limit), deletion].compactMap { $0 }.max()
    }

    /// The latest reading of `id`'s amendments (a deletion included): an
    /// amendment of it is stamped after this, however far ahead it is.
    public func latest(of id: SessionID) -> HybridTimestamp? {
        [records.lastChange(of: id.description), deletions[id]].compactMap { $0 }.max()
    }

    /// Whether any amendment was read.
    public var isEmpty: Bool { ids.isEmpty }

    /// The ids with amendments.
    public private(set) var ids: Set<SessionID> = []

    /// Takes in one amendment, stamped with its hybrid clock reading.
    public mutating func add(_ amendment: HistoryAmendment, at: HybridTimestamp) {
        let id = amendment.id
        ids.insert(id)
        if case .delete = amendment {
            if deletions[id].map({ at > $0 }) ?? true { deletions[id] = at }
            if latestDeletion.map({ at > $0 }) ?? true { latestDeletion = at }
            return
        }
        let key = id.description
        switch amendment {
        case .delete: break
        case .edit(let session, let changes, _):
            keepBase(session, at: at)
            for field in changes.fields {
                records.apply(RecordChange(at: at, record: key, kind: .set(field: field.rawValue, value: .session(session))))
            }
            for tag in changes.tagsAdded { mention(tag, of: id, at: at, add: true) }
            for tag in changes.tagsRemoved { mention(tag, of: id, at: at, add: false) }
            // An edit of fields the merge does not track (none today) is
            // still an edit: ordered after a deletion, it brings the session back.
            if changes.isEmpty { records.apply(RecordChange(at: at, record: key, kind: .set(field: "edited", value: nil))) }
        case .revise(let session, _):
            keepBase(session, at: at)
            for field in SessionChanges.Field.allCases {
                records.apply(RecordChange(at: at, record: key, kind: .set(field: field.rawValue, value: .session(session))))
            }
            if wholes[id].map({ at > $0 }) ?? true { wholes[id] = at }
            for tag in session.tags { mention(tag, of: id, at: at, add: true) }
            pendingWholes.append((at, session))
        }
    }

    private mutating func keepBase(_ session: Session, at: HybridTimestamp) {
        if bases[session.id].map({ at > $0.at }) ?? true { bases[session.id] = (at, session) }
    }

    private mutating func mention(_ tag: String, of id: SessionID, at: HybridTimestamp, add: Bool) {
        mentioned[id, default: []].insert(tag)
        let field = Self.tagsField, record = id.description
        records.apply(RecordChange(at: at, record: record, kind: add ? .add(field: field, element: .tag(tag)) : .remove(field: field, element: .tag(tag))))
    }

    /// A whole revision clears every tag it does not hold, as of its
    /// reading; applied when read, since only then is every tag known.
    private func settled() -> ReplicatedRecords<Value> {
        guard !pendingWholes.isEmpty else { return records }
        var settled = records
        for whole in pendingWholes {
            let kept = Set(whole.session.tags)
            for tag in mentioned[whole.session.id] ?? [] where !kept.contains(tag) {
                settled.apply(RecordChange(at: whole.at, record: whole.session.id.description, kind: .remove(field: Self.tagsField, element: .tag(tag))))
            }
        }
        return settled
    }

    /// Every amended session as the merge gives it; deleted ones are absent.
    public func resolved() -> [SessionID: Session] {
        let records = settled()
        var sessions: [SessionID: Session] = [:]
        sessions.reserveCapacity(bases.count)
        for (id, base) in bases {
            let key = id.description
            guard let fields = records.record(key), let edited = records.lastChange(of: key),
                  deletions[id].map({ edited > $0 }) ?? true else { continue }
            var session = base.session
            for field in SessionChanges.Field.allCases {
                if case .session(let source)? = fields.fields[field.rawValue] {
                    session = SessionChanges.copy(field, from: source, into: session)
                }
            }
            let members = (fields.sets[Self.tagsField] ?? []).compactMap { value -> String? in
                if case .tag(let tag) = value { return tag }
                return nil
            }
            // A tag of the base that no amendment mentions was on the
            // session's own line: it stays, unless a whole revision set the
            // tags since. Tags keep the base's order, added ones after.
            let present = Set(members), mentioned = self.mentioned[id] ?? [], keepsBase = wholes[id] == nil
            var tags = base.session.tags.filter { present.contains($0) || (keepsBase && !mentioned.contains($0)) }
            let listed = Set(tags)
            tags += members.filter { !listed.contains($0) }
            sessions[id] = Session(id: session.id, groupId: session.groupId, startedAt: session.startedAt, plannedEnd: session.plannedEnd,
                                   endedAt: session.endedAt, outcome: session.outcome, strict: session.strict, breaks: session.breaks,
                                   tags: tags, note: session.note, origin: session.origin, bootDeadline: session.bootDeadline,
                                   shield: session.shield, groupName: session.groupName, device: session.device, cycle: session.cycle,
                                   away: session.away)
        }
        return sessions
    }

    /// `sessions` as amended: amended ids replaced by their merged session
    /// (if it matches `query`) or dropped (deleted), in the query's order
    /// and limit.
    public func apply(to sessions: [Session], query: HistoryQuery) -> [Session] {
        apply(resolved(), to: sessions, query: query)
    }

    /// `apply(to:query:)` with the merge already made.
    public func apply(_ resolved: [SessionID: Session], to sessions: [Session], query: HistoryQuery) -> [Session] {
        guard !isEmpty else { return sessions }
        let amended = ids
        var kept = sessions.filter { !amended.contains($0.id) }
        for session in resolved.values where query.matches(session) { kept.append(session) }
        return query.order(kept)
    }
}
