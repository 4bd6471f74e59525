import FoundationEssentials

/// Remembers which interval events have been handled, so each is handled at
/// most once, across daemon restarts and clock jumps.
///
/// The contract every adapter keeps is `IntervalLedgerContract`.
public protocol IntervalLedger: Sendable {
    /// Records `key` as handled at `at`; true if this call was the first to
    /// do so (atomic: of concurrent claims exactly one wins).
    func claim(_ key: String, at: Date) async throws -> Bool
    /// Forgets what was handled before `instant`.
    func forget(before instant: Date) async throws
    /// The latest instant a daemon pass has reached, nil before the first.
    func watermark() async throws -> Date?
    /// Moves the watermark forward to `instant` (never back).
    func advanceWatermark(to instant: Date) async throws
}

extension IntervalEvent {
    /// The ledger key of this event: schedule, local day, event.
    public var ledgerKey: String { "\(interval.scheduleId)/\(interval.day)/\(kind.rawValue)" }
}
