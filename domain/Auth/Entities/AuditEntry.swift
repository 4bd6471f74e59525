import Foundation

/// One line of the append-only audit trail: every passcode attempt and
/// every passcode change, right or wrong. Never the passcode itself.
public struct AuditEntry: Sendable, Equatable, Codable {
    /// What was attempted: `stop`, `pause`, `group.unblock`, `set-passcode`, ...
    public var action: String
    public var at: Date
    public var success: Bool
    /// Why it failed (`wrongPasscode`, `lockedOut`, `passcodeRequired`, ...); nil on success.
    public var reason: String?

    public init(action: String, at: Date, success: Bool, reason: String? = nil) {
        self.action = action
        self.at = at
        self.success = success
        self.reason = reason
    }
}
