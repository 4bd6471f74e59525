import FoundationEssentials

/// One line of the append-only audit trail: every passcode attempt and
/// every passcode change, right or wrong. Never the passcode itself.
public struct AuditEntry: Sendable, Equatable, Codable {
    /// What was attempted: `stop`, `pause`, `group.unblock`, `set-passcode`, ...
    public var action: String
    public var at: Date
    public var success: Bool
    /// Why it failed (`wrongPasscode`, `lockedOut`, `passcodeRequired`, ...); nil on success.
    public var reason: String?
    /// A line that stands for several refusals in a row of the same action
    /// for the same reason (a trail that summarises them: the system
    /// service's): how many, the first at `at`, the last at `until`.
    public var count: Int?
    public var until: Date?

    public init(action: String, at: Date, success: Bool, reason: String? = nil, count: Int? = nil, until: Date? = nil) {
        self.action = action
        self.at = at
        self.success = success
        self.reason = reason
        self.count = count
        self.until = until
    }

    /// Whether `next` is one more refusal like this one (summarised here).
    public func repeats(as next: AuditEntry) -> Bool {
        !success && !next.success && action == next.action && reason == next.reason
    }
}
