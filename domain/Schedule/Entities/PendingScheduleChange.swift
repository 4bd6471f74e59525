import FoundationEssentials

/// A weakening of a strict schedule that waits for the end of its next
/// interval (semantics: a strict schedule is only as strong as the user's
/// foresight otherwise). Until `effectiveAt` the schedule runs as before,
/// strict; from then on it is removed or disabled. The passcode makes the
/// change at once; `schedule enable` withdraws it.
public struct PendingScheduleChange: Sendable, Hashable, Codable {
    public enum Kind: String, Sendable, Hashable, Codable {
        case remove, disable
    }

    public var kind: Kind
    /// The end of the interval that was running or next to come when the
    /// change was asked for.
    public var effectiveAt: Date

    public init(kind: Kind, effectiveAt: Date) {
        self.kind = kind
        self.effectiveAt = effectiveAt
    }
}

extension Schedule {
    /// The schedule as it stands at `now`: nil once a pending removal has
    /// taken effect, disabled once a pending disabling has.
    public func effective(at now: Date) -> Schedule? {
        guard let pending, pending.effectiveAt <= now else { return self }
        switch pending.kind {
        case .remove: return nil
        case .disable:
            var disabled = self
            disabled.enabled = false
            disabled.pending = nil
            return disabled
        }
    }

    /// The schedules as they stand at `now`: each pending change whose time
    /// has come made (a removed one gone), whether or not a command has
    /// stored it yet. What uses a group, what `schedule list` shows and
    /// what runs are judged by this, never by the store alone.
    public static func standing(_ schedules: [Schedule], at now: Date) -> [Schedule] {
        schedules.compactMap { $0.effective(at: now) }
    }

    /// Whether a weakening must wait: a strict schedule that still runs.
    public var guardsItsIntervals: Bool { strict && enabled && !weekdays.isEmpty }
}

extension IntervalCalendar {
    /// The end of the interval of `schedule` running at `now`, or else of
    /// the next one to start; nil if it has none (no days).
    public func endOfCurrentOrNextInterval(of schedule: Schedule, at now: Date) -> Date? {
        let today = localDay(of: now)
        // A week and a day ahead finds an instance of any schedule with a day;
        // yesterday's may cross midnight into now.
        for day in (today - 1)...(today + 8) {
            if let instance = instance(of: schedule, onDay: day), instance.end > now { return instance.end }
        }
        return nil
    }
}
