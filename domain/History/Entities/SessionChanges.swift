import FoundationEssentials
import RetimeSession

/// What one amendment of an ended session changed: the fields it set and
/// the tags it added or removed. Readers merge amendments per field
/// (`AmendedSessions`), so an edit of the note on one device and of the
/// tags on another both hold (docs/history.md, "Several devices").
public struct SessionChanges: Hashable, Sendable {
    /// A session's fields as amendments change them. `times` is the start,
    /// planned end, end and breaks together: they are checked together, so
    /// a merge never pairs one device's start with another's end.
    public enum Field: String, CaseIterable, Hashable, Sendable {
        case group, times, note, outcome, strict, origin
    }

    public var fields: Set<Field>
    public var tagsAdded: [String]
    public var tagsRemoved: [String]

    public init(fields: Set<Field> = [], tagsAdded: [String] = [], tagsRemoved: [String] = []) {
        self.fields = fields
        self.tagsAdded = tagsAdded
        self.tagsRemoved = tagsRemoved
    }

    /// What turns `before` into `after`.
    public init(from before: Session, to after: Session) {
        var fields: Set<Field> = []
        if before.groupId != after.groupId || before.groupName != after.groupName { fields.insert(.group) }
        if before.startedAt != after.startedAt || before.plannedEnd != after.plannedEnd || before.endedAt != after.endedAt
            || before.breaks != after.breaks { fields.insert(.times) }
        if before.note != after.note { fields.insert(.note) }
        if before.outcome != after.outcome { fields.insert(.outcome) }
        if before.strict != after.strict { fields.insert(.strict) }
        if before.origin != after.origin { fields.insert(.origin) }
        let old = Set(before.tags), new = Set(after.tags)
        self.init(fields: fields, tagsAdded: after.tags.filter { !old.contains($0) }, tagsRemoved: before.tags.filter { !new.contains($0) })
    }

    public var isEmpty: Bool { fields.isEmpty && tagsAdded.isEmpty && tagsRemoved.isEmpty }

    /// `session` with `field` as `source` has it.
    static func copy(_ field: Field, from source: Session, into session: Session) -> Session {
        var group = (session.groupId, session.groupName), times = (session.startedAt, session.plannedEnd, session.endedAt, session.breaks)
        var note = session.note, outcome = session.outcome, strict = session.strict, origin = session.origin
        var away = session.away   // away time moves with the times, as breaks do
        switch field {
        case .group: group = (source.groupId, source.groupName)
        case .times:
            times = (source.startedAt, source.plannedEnd, source.endedAt, source.breaks)
            away = source.away
        case .note: note = source.note
        case .outcome: outcome = source.outcome
        case .strict: strict = source.strict
        case .origin: origin = source.origin
        }
        return Session(id: session.id, groupId: group.0, startedAt: times.0, plannedEnd: times.1, endedAt: times.2, outcome: outcome,
                       strict: strict, breaks: times.3, tags: session.tags, note: note, origin: origin,
                       bootDeadline: session.bootDeadline, shield: session.shield, groupName: group.1, device: session.device,
                       cycle: session.cycle, away: away)
    }
}
