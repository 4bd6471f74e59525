import FoundationEssentials
import RetimeShared

/// The passcode as an enforcer outside the user's data keeps it: the system
/// service holds its own hash per user and decides a strict block's early
/// end by it, so a hash edited into the user's data lifts nothing. When an
/// enforcer keeps passcodes, the user's data keeps no hash at all (only a
/// note that the enforcer holds it), and every check is the enforcer's,
/// under its lockout and audit: a hash in the user's own files could be
/// cracked offline, past any lockout.
public protocol EnforcerPasscodes: Sendable {
    /// nil when no enforcer here keeps passcodes (the user's data then keeps
    /// the hash); else whether it holds one for this user, and its lockout.
    func passcodeState() async throws -> EnforcerPasscodeState?
    func set(_ passcode: Passcode) async throws
    func change(from current: Passcode, to new: Passcode) async throws
    func remove(_ current: Passcode) async throws
    /// Checks `passcode` for `action` under the enforcer's lockout (one
    /// counted attempt); throws why not. One that keeps no passcode throws
    /// `AuthError.passcodeNotSet`.
    func verify(_ passcode: Passcode, action: String) async throws
}

/// What an enforcer that keeps passcodes says of the caller's: whether it
/// holds one, and the lockout its checks have earned (what `auth status`
/// shows when the enforcer holds the passcode).
public struct EnforcerPasscodeState: Sendable, Equatable {
    public var held: Bool
    public var failedAttempts: Int
    public var lockedUntil: Date?

    public init(held: Bool, failedAttempts: Int = 0, lockedUntil: Date? = nil) {
        self.held = held
        self.failedAttempts = failedAttempts
        self.lockedUntil = lockedUntil
    }
}

extension EnforcerPasscodes {
    /// nil when no enforcer keeps passcodes; else whether it holds one.
    public func heldPasscode() async throws -> Bool? { try await passcodeState()?.held }
}
