/// The passcode as an enforcer outside the user's data keeps it: the system
/// service holds its own hash per user and decides a strict block's early
/// end by it, so a hash edited into the user's data lifts nothing. When an
/// enforcer keeps passcodes, the user's data keeps no hash at all (only a
/// note that the enforcer holds it), and every check is the enforcer's,
/// under its lockout and audit: a hash in the user's own files could be
/// cracked offline, past any lockout.
public protocol EnforcerPasscodes: Sendable {
    /// nil when no enforcer here keeps passcodes (the user's data then keeps
    /// the hash); else whether it holds one for this user.
    func heldPasscode() async throws -> Bool?
    func set(_ passcode: Passcode) async throws
    func change(from current: Passcode, to new: Passcode) async throws
    func remove(_ current: Passcode) async throws
    /// Checks `passcode` for `action` under the enforcer's lockout (one
    /// counted attempt); throws why not. One that keeps no passcode throws
    /// `AuthError.passcodeNotSet`.
    func verify(_ passcode: Passcode, action: String) async throws
}
