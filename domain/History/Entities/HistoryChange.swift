import FoundationEssentials
import RetimeSession

/// One change a history command made (`track`, `edit`, `delete`, a run of
/// `import`), as `undo` needs it: every session it touched, as it was
/// before and after. Recorded in the device's journal before the change is
/// written, so a change cut short by a crash is still undone whole.
public struct HistoryChange: Sendable, Hashable, Identifiable {
    /// The command that made it.
    public enum Kind: String, Sendable, Hashable {
        case track, edit, delete, `import`
    }

    /// A session the change touched. `before` nil: the change added it;
    /// `after` nil: the change deleted it.
    public struct Entry: Sendable, Hashable {
        public var id: SessionID
        public var before: Session?
        public var after: Session?

        public init(before: Session?, after: Session?) {
            id = (after ?? before)?.id ?? SessionID()
            self.before = before
            self.after = after
        }

        /// What of the session the change changed, in words (`tags`, `note`).
        public var changedParts: [String] {
            guard let before, let after else { return [] }
            var parts: [String] = []
            if before.groupId != after.groupId || before.groupName != after.groupName { parts.append("group") }
            if before.startedAt != after.startedAt || before.endedAt != after.endedAt { parts.append("times") }
            if before.tags != after.tags { parts.append("tags") }
            if before.note != after.note { parts.append("note") }
            if parts.isEmpty { parts.append("details") }
            return parts
        }
    }

    public var id: UUID
    public var kind: Kind
    /// When it was made (its amendments' instant).
    public var at: Date
    /// Where an import read from (`watson`), for saying what is undone.
    public var source: String?
    public var entries: [Entry]

    public init(id: UUID = UUID(), kind: Kind, at: Date, source: String? = nil, entries: [Entry]) {
        self.id = id
        self.kind = kind
        self.at = at
        self.source = source
        self.entries = entries
    }

    /// Whether two readings of a session say the same in history: what
    /// `log` and `export` show (a read-back session carries no shield or
    /// boot-time deadline, which only a running one needs).
    public static func same(_ lhs: Session?, _ rhs: Session?) -> Bool {
        switch (lhs, rhs) {
        case (nil, nil): return true
        case (let lhs?, let rhs?):
            return lhs.id == rhs.id && lhs.groupId == rhs.groupId && lhs.groupName == rhs.groupName
                && lhs.startedAt == rhs.startedAt && lhs.plannedEnd == rhs.plannedEnd && lhs.endedAt == rhs.endedAt
                && lhs.outcome == rhs.outcome && lhs.strict == rhs.strict && lhs.breaks == rhs.breaks && lhs.tags == rhs.tags
                && lhs.note == rhs.note && lhs.origin == rhs.origin
        default: return false
        }
    }
}
