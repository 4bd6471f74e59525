/// Serialises the changes whose checks span records, across every retime
/// process sharing the data: a group being deleted and a session starting
/// on it, a schedule added to it, a target removed while a strict session
/// starts on it, two edits of one group or of the passcode. A use case runs
/// its read, its checks and its write inside `exclusively`, so no other
/// process changes those records in between (semantics.md, "Every
/// acknowledged edit holds").
///
/// Re-entrant within one task: a use case that calls another (a strict
/// check verifying the passcode) takes it once. Reads that check nothing
/// need no lock: every write is atomic on its own.
///
/// The contract every adapter keeps is `DataLockContract`.
public protocol DataLock: Sendable {
    /// Runs `body` holding the lock; waits for another holder, within a
    /// bound (a `StoreError.lockTimeout` past it, never a hang).
    func exclusively<T>(_ body: () async throws -> T) async throws -> T
}
