/// The append-only record of passcode attempts and changes. Entries are
/// never rewritten or removed by retime.
///
/// The contract every adapter keeps is `AuditTrailContract`.
public protocol AuditTrail: Sendable {
    func append(_ entry: AuditEntry) async throws
    /// Every entry, oldest first.
    func entries() async throws -> [AuditEntry]
}
