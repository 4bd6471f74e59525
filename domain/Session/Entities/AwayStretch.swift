import FoundationEssentials

/// A stretch of a session during which its user was not at the machine:
/// suspended, or idle or locked for longer than `away.threshold`. Counted
/// out of focused time unless the user kept it (`retime keep-away`).
public struct AwayStretch: Hashable, Sendable, Codable {
    public enum Reason: String, Hashable, Sendable, Codable, CaseIterable {
        case idle
        case locked
        case asleep
    }

    public var reason: Reason
    public var start: Date
    /// Nil while the user is still away.
    public var end: Date?
    /// How long it must last to count: `away.threshold` when it began, zero
    /// for a suspend (which always counts). A shorter stretch is not away.
    public var threshold: TimeInterval
    /// The user said it was focused time after all (`retime keep-away`).
    public var kept: Bool

    public init(reason: Reason, start: Date, end: Date? = nil, threshold: TimeInterval = 0, kept: Bool = false) {
        self.reason = reason
        self.start = start
        self.end = end
        self.threshold = threshold
        self.kept = kept
    }

    /// The part of the stretch inside `from...to` that counts as away, as
    /// a start and end; nil when it is kept, too short, or outside.
    public func counted(from: Date, to: Date) -> (start: Date, end: Date)? {
        guard !kept else { return nil }
        let end = min(self.end ?? to, to)
        guard end.timeIntervalSince(start) >= threshold else { return nil }
        let start = max(self.start, from)
        return end > start ? (start, end) : nil
    }
}
