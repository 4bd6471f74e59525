import Foundation

/// Answers "may this group be weakened now?" for the Group context: a strict
/// session on it says no until its end. The Session context knows; the
/// composition root plugs in an adapter over it.
public protocol GroupLock: Sendable {
    /// Until when the group may not lose targets, be renamed or deleted; nil if it may now.
    func lockedUntil(_ group: GroupID) async throws -> Date?
}
