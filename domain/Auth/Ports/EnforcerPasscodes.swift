/// The passcode as an enforcer outside the user's data keeps it: the system
/// service holds its own hash per user and decides a strict block's early
/// end by it, so a hash edited into the user's data lifts nothing. Setting,
/// changing and removing the user's passcode do the same there first.
public protocol EnforcerPasscodes: Sendable {
    func set(_ passcode: Passcode) async throws
    func change(from current: Passcode, to new: Passcode) async throws
    func remove(_ current: Passcode) async throws
}
