import FoundationEssentials

/// One part of history as its store keeps it: one device's sessions of one
/// month (`history/<device>/2026-03.jsonl`, or a sync tool's conflict copy
/// of it). A report takes a sealed month's segments together from one
/// summary (`MonthSummary`) instead of reading their sessions.
public struct HistorySegment: Sendable, Hashable {
    /// The device whose folder holds it.
    public var device: String
    /// Its name within that folder.
    public var name: String
    /// The month its sessions are filed under (UTC), if it is one.
    public var month: Range<Date>?
    /// Moves whenever its content may have changed; a summary made at one
    /// version stands for it while it is still at that version. Nil when
    /// it changed so recently that a next change might not move it: no
    /// summary is made of it then.
    public var version: String?

    public init(device: String, name: String, month: Range<Date>?, version: String?) {
        self.device = device
        self.name = name
        self.month = month
        self.version = version
    }

    /// Whether its month is over by `now`: later sessions go to later
    /// months, so summarising it is not undone by the next `stop`.
    public func sealed(at now: Date) -> Bool {
        month.map { $0.upperBound <= now } ?? false
    }
}
