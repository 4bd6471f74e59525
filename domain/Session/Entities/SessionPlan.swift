import FoundationEssentials
import RetimeGroup

/// What a user asks for when starting a session, before validation.
public struct SessionPlan: Sendable, Hashable {
    /// The group by name, as a user names it...
    public var groupName: String
    /// ...or by id, as a schedule refers to it; the id wins when given.
    /// With neither (an empty name), the configured default group, which is
    /// created empty on first use.
    public var groupId: GroupID?
    /// Whether a named group that does not exist is created, empty (the
    /// user was asked and said yes).
    public var createsGroup = false
    public var length: SessionLength
    public var strict: Bool
    public var tags: [String]
    public var note: String?
    public var origin: SessionOrigin
    /// When the session began, if not at the start itself: a schedule's
    /// interval start, which the daemon reaches a few milliseconds late. A
    /// time after the start is ignored (nothing begins in the future).
    public var startAt: Date?
    /// The session's id when every device must give it the same one: a
    /// schedule's interval, which each device's daemon may start
    /// (`ScheduledSessionID`). Nil: a new, random id.
    public var id: SessionID?
    /// The focus cycle to run (`--cycle`, `--flow`, a schedule's cycle); a
    /// fixed cycle's length is the session's unless `length` gives one
    /// (a schedule's interval), into which it fits its rounds.
    public var cycle: Cycle?
    /// The allowance the session carries for its group (a schedule's
    /// `--allowance`), in place of the group's own; nil for the group's.
    public var allowance: TimeInterval?

    public init(groupName: String, groupId: GroupID? = nil, length: SessionLength = .openEnded, strict: Bool = false,
                tags: [String] = [], note: String? = nil, origin: SessionOrigin = .manual, startAt: Date? = nil) {
        self.groupName = groupName
        self.groupId = groupId
        self.length = length
        self.strict = strict
        self.tags = tags
        self.note = note
        self.origin = origin
        self.startAt = startAt
    }
}

/// How long a session is meant to last.
public enum SessionLength: Sendable, Hashable {
    case openEnded
    case duration(TimeInterval)
    case until(Date)
    /// Until the next occurrence of a time of day typed without a date
    /// (`--until 03:00`): a strict session may not take it more than
    /// `strictTimeOfDayHorizon` ahead, where a typo would lock a day away.
    case untilTimeOfDay(Date)

    /// How far ahead a strict session's `--until TIME` may lie.
    public static let strictTimeOfDayHorizon: TimeInterval = 12 * 3_600

    /// Sessions last from one second to one day.
    public static let allowed: ClosedRange<TimeInterval> = 1...86_400

    /// The planned end for a session starting at `start`, validated.
    public func plannedEnd(from start: Date) throws(SessionError) -> Date? {
        let seconds: TimeInterval
        switch self {
        case .openEnded: return nil
        case .duration(let value): seconds = value
        case .until(let end), .untilTimeOfDay(let end):
            seconds = end.timeIntervalSince(start)
            guard seconds > 0 else { throw .invalidLength("\(end.formatted(.iso8601)) is not in the future") }
        }
        guard seconds.isFinite, Self.allowed.contains(seconds) else {
            throw .invalidLength("a session lasts from 1 second to 24 hours")
        }
        return start.addingTimeInterval(seconds)
    }
}

extension SessionPlan {
    public static let maxTagLength = 64
    public static let maxNoteLength = 1_000

    /// Tags trimmed, checked and de-duplicated, in the order given.
    public func validatedTags() throws(SessionError) -> [String] {
        var result: [String] = []
        for tag in tags {
            let trimmed = tag.trimmedSpaces
            guard !trimmed.isEmpty else { throw .invalidTag(tag, reason: "it is empty") }
            guard trimmed.count <= Self.maxTagLength else {
                throw .invalidTag(tag, reason: "it is longer than \(Self.maxTagLength) characters")
            }
            guard !trimmed.containsControlCharacter else {
                throw .invalidTag(tag, reason: "it contains a control character")
            }
            guard !trimmed.containsLayoutControl else {
                throw .invalidTag(tag, reason: "it contains a line separator or a text-direction control")
            }
            if !result.contains(trimmed) { result.append(trimmed) }
        }
        return result
    }

    /// The note trimmed, nil when blank.
    public func validatedNote() throws(SessionError) -> String? {
        guard let trimmed = note?.trimmed, !trimmed.isEmpty else { return nil }
        guard trimmed.count <= Self.maxNoteLength else {
            throw .invalidNote(reason: "it is longer than \(Self.maxNoteLength) characters")
        }
        return trimmed
    }
}
