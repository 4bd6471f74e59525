import FoundationEssentials
import RetimeShared

/// Answers "may this group be weakened now?" for the Group context: a strict
/// session on it says no until its end. The Session context knows; the
/// composition root plugs in an adapter over it.
public protocol GroupLock: Sendable {
    /// Until when the group may not lose targets, be renamed or deleted; nil if it may now.
    func lockedUntil(_ group: GroupID) async throws -> Date?
    /// The targets a strict session on `group` holds to its end whatever
    /// the group loses (`Session.heldTargets`): one another device removed
    /// from the group is still blocked, and still released with `unblock`.
    func held(_ group: GroupID) async throws -> [Target]
    /// Told that `targets` left `group` here, past `check` (its passcode,
    /// or no strict session): a strict session on it no longer holds them,
    /// so its block lets them go.
    func released(_ targets: [Target], of group: GroupID) async throws
}

extension GroupLock {
    /// Returns if `group` may be weakened now, or if `passcode` overrides
    /// the strict session that locks it; throws `GroupError.locked` (or the
    /// passcode's failure) otherwise.
    func check(_ group: Group, _ action: String, passcode: Passcode?, override: any StrictOverride) async throws {
        guard let until = try await lockedUntil(group.id) else { return }
        try await override.authorize(action, passcode: passcode,
                                     otherwise: GroupError.locked(name: group.name.rawValue, until: until))
    }
}
