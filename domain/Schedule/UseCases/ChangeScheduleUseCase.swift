import FoundationEssentials
import RetimeShared

/// Removes, enables or disables a schedule by name.
///
/// A strict schedule is as strong as a strict session: removing or
/// disabling it while it still runs takes effect only after its next
/// interval ends (the one running, or else the next to start), recorded as
/// pending, so the interval the user foresaw still comes, strict. The
/// passcode (`StrictOverride`) makes the change at once; enabling withdraws
/// a pending change. A disabled or non-strict schedule changes at once.
public struct ChangeScheduleUseCase: Sendable {
    private let schedules: any ScheduleRepository
    private let dataLock: any DataLock
    private let clock: any Clock
    private let calendar: IntervalCalendar
    private let override: any StrictOverride

    public init(schedules: any ScheduleRepository, dataLock: any DataLock, clock: any Clock, calendar: IntervalCalendar,
                override: any StrictOverride) {
        self.schedules = schedules
        self.dataLock = dataLock
        self.clock = clock
        self.calendar = calendar
        self.override = override
    }

    /// Removes the schedule, or records its removal as pending; returns it
    /// as it was (with `pending` set when the removal waits).
    @discardableResult
    public func remove(named name: String, passcode: Passcode? = nil) async throws -> Schedule {
        try await dataLock.exclusively {
            var schedule = try await existing(name)
            if let until = try await mustWait(schedule, action: "schedule remove", passcode: passcode) {
                schedule.pending = PendingScheduleChange(kind: .remove, effectiveAt: min(until, schedule.pending?.effectiveAt ?? until))
                try await schedules.update(schedule)
                return schedule
            }
            try await schedules.delete(id: schedule.id)
            schedule.pending = nil
            return schedule
        }
    }

    /// Turns the schedule on or off; returns it as it is now (a disabling
    /// that waits has `pending` set and is still enabled).
    @discardableResult
    public func setEnabled(_ enabled: Bool, named name: String, passcode: Passcode? = nil) async throws -> Schedule {
        try await dataLock.exclusively {
            var schedule = try await existing(name)
            if enabled {
                // Stricter: any weakening that waited is withdrawn.
                guard !schedule.enabled || schedule.pending != nil else { return schedule }
                schedule.enabled = true
                schedule.pending = nil
            } else {
                guard schedule.enabled else { return schedule }
                if let until = try await mustWait(schedule, action: "schedule disable", passcode: passcode) {
                    guard schedule.pending == nil else { return schedule }
                    schedule.pending = PendingScheduleChange(kind: .disable, effectiveAt: until)
                } else {
                    schedule.enabled = false
                    schedule.pending = nil
                }
            }
            try await schedules.update(schedule)
            return schedule
        }
    }

    /// Makes every pending change whose time has come: the schedules as
    /// they stand now are what the store then holds.
    public func settle() async throws {
        let now = clock.now()
        try await dataLock.exclusively {
            for schedule in try await schedules.all() where schedule.pending.map({ $0.effectiveAt <= now }) ?? false {
                try await apply(schedule, at: now)
            }
        }
    }

    /// When the weakening of `schedule` may happen (the end of its next
    /// interval), or nil for now: not strict, not running, or the passcode.
    private func mustWait(_ schedule: Schedule, action: String, passcode: Passcode?) async throws -> Date? {
        guard schedule.guardsItsIntervals, let until = calendar.endOfCurrentOrNextInterval(of: schedule, at: clock.now()) else { return nil }
        guard let passcode else { return until }
        try await override.authorize(action, passcode: passcode, otherwise: ScheduleError.strict(name: schedule.name, until: until))
        return nil
    }

    /// The schedule named `name`, with a pending change that is due made first.
    private func existing(_ name: String) async throws -> Schedule {
        guard let schedule = try await schedules.schedule(named: name) else { throw ScheduleError.notFound(name: name) }
        let now = clock.now()
        guard schedule.effective(at: now) != schedule else { return schedule }
        guard let settled = try await apply(schedule, at: now) else { throw ScheduleError.notFound(name: name) }
        return settled
    }

    @discardableResult
    private func apply(_ schedule: Schedule, at now: Date) async throws -> Schedule? {
        guard let settled = schedule.effective(at: now) else {
            try await schedules.delete(id: schedule.id)
            return nil
        }
        try await schedules.update(settled)
        return settled
    }
}
