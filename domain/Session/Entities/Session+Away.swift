import FoundationEssentials
import RetimeShared

/// A session's away time (semantics: suspended time never counts as
/// focused; idle or locked time longer than `away.threshold` is excluded).
/// The daemon records stretches as it hears of them (`PresenceSignals`);
/// without it the two clocks read at the start and at any later command
/// still tell how long the machine slept (`BootTimeReading.suspended`), and
/// that amount is recorded as an asleep stretch right after the last
/// reading before it (`Session+Readings`).
extension Session {
    /// Every away stretch recorded, oldest first.
    public var awayStretches: [AwayStretch] { away ?? [] }

    /// Whether a stretch is open (the user is away as far as it knows).
    public var openAway: AwayStretch? { awayStretches.last.flatMap { $0.end == nil ? $0 : nil } }

    /// The session with an away stretch opened at `since` (not before its
    /// start), unless one is open already.
    public func awayBegins(_ reason: AwayStretch.Reason, since: Date, threshold: TimeInterval) -> Session {
        guard isActive, openAway == nil else { return self }
        var next = self
        next.away = awayStretches + [AwayStretch(reason: reason, start: max(since, startedAt), threshold: reason == .asleep ? 0 : threshold)]
        return next
    }

    /// The session with its open away stretch closed at `instant`; dropped
    /// when it was shorter than its threshold (a pause to think is not away).
    public func awayEnds(at instant: Date) -> Session {
        guard var open = openAway else { return self }
        var next = self
        var list = awayStretches
        list.removeLast()
        open.end = max(instant, open.start)
        if open.end!.timeIntervalSince(open.start) >= open.threshold { list.append(open) }
        next.away = list.isEmpty ? nil : list
        return next
    }

    /// The same session with the machine's sleep since it started that no
    /// stretch accounts for recorded, as the clocks read at `now` tell it
    /// (`BootTimeReading.suspended`): an asleep stretch placed right after
    /// the session's last reading (`placing`), no later than where its
    /// clock stops (`end`, else its effective end). Read after the session's end, the
    /// clocks cannot say whether a sleep was before or after it: only what
    /// must have been inside counts (a lid closed for the night after a
    /// session does not erase it). The same session when nothing is missing.
    public func noticingSuspend(at now: Date, boot: BootTimeReading?, endingAt end: Date? = nil) -> Session {
        guard isActive, let boot, let start = startReading, let slept = boot.suspended(since: start) else { return self }
        let end = end ?? effectiveEnd(at: now)
        let inside = max(0, slept - max(0, now.timeIntervalSince(end)))
        let recorded = awayStretches.filter { $0.reason == .asleep }
            .reduce(0) { $0 + (($1.end ?? end).timeIntervalSince($1.start)) }
        let missing = min(inside - recorded, end.timeIntervalSince(startedAt))
        guard missing >= 1 else { return self }
        var next = self
        next.away = (awayStretches + placing(sleep: missing, boot: boot, end: end)).sorted { $0.start < $1.start }
        // What is noticed now is placed: a later sleep comes after this reading.
        next.lastReading = ClockReading(at: now, boot: boot)
        return next
    }

    /// The stretches that count as away up to `now`, clipped to the session.
    public func countedAway(at now: Date) -> [(start: Date, end: Date)] {
        let end = effectiveEnd(at: now)
        return awayStretches.compactMap { $0.counted(from: startedAt, to: end) }
    }

    /// Time away up to `now` that is not in a break as well.
    public func awayTime(at now: Date) -> TimeInterval {
        let end = effectiveEnd(at: now)
        let pauses = breaks.map { (start: max($0.start, startedAt), end: min($0.end ?? end, end)) }.filter { $0.end > $0.start }
        let away = countedAway(at: now)
        guard !away.isEmpty else { return 0 }
        return Self.measure(pauses + away) - Self.measure(pauses)
    }

    /// Time asleep up to `now` (suspended), clipped to the session.
    public func asleepTime(at now: Date) -> TimeInterval {
        let end = effectiveEnd(at: now)
        return Self.measure(awayStretches.filter { $0.reason == .asleep }.compactMap { $0.counted(from: startedAt, to: end) })
    }

    /// The last closed idle or locked stretch that counted as away (what
    /// `status` tells on return and `keep-away` keeps); nil when there is
    /// none. Sleep is never kept: nobody focuses on a suspended machine.
    public var lastAway: AwayStretch? {
        awayStretches.last { stretch in
            guard stretch.reason != .asleep, !stretch.kept, let end = stretch.end else { return false }
            return end.timeIntervalSince(stretch.start) >= stretch.threshold
        }
    }

    /// The session with its last idle or locked stretch (or, with `all`,
    /// every one) kept as focused. Throws `nothingAway` when none counts.
    public func keepingAway(all: Bool) throws(SessionError) -> (session: Session, kept: TimeInterval) {
        guard isActive else { throw .notActive }
        var list = awayStretches
        var kept: TimeInterval = 0
        for index in list.indices.reversed() {
            let stretch = list[index]
            guard stretch.reason != .asleep, !stretch.kept, let end = stretch.end,
                  end.timeIntervalSince(stretch.start) >= stretch.threshold else { continue }
            list[index].kept = true
            kept += end.timeIntervalSince(stretch.start)
            if !all { break }
        }
        guard kept > 0 else { throw .nothingAway }
        var next = self
        next.away = list
        return (next, kept)
    }

    /// The length of the union of intervals.
    static func measure(_ intervals: [(start: Date, end: Date)]) -> TimeInterval {
        var total: TimeInterval = 0
        var cursor: Date?
        for interval in intervals.sorted(by: { $0.start < $1.start }) {
            let from = max(interval.start, cursor ?? interval.start)
            if interval.end > from { total += interval.end.timeIntervalSince(from) }
            cursor = max(cursor ?? interval.end, interval.end)
        }
        return total
    }
}
