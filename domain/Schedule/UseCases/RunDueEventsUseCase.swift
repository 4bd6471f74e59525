import FoundationEssentials
import RetimeSession
import RetimeShared

/// One pass of the daemon: completes a session whose planned end has come,
/// handles every interval event that is due and not yet handled, and says
/// when the next one is due (semantics.md, "Schedules and interval events").
///
/// - `intervalDidStart` starts a session (origin `schedule:NAME`, planned
///   end = the interval's end, strict as the schedule says); with another
///   session active the interval is skipped.
/// - An interval in progress that was never handled (the daemon was down,
///   asleep, or the clock jumped) is started late; one that began and ended
///   unseen is recorded as missed, not started. A warning whose moment has
///   passed without it is not shown late.
/// - `intervalDidEnd` needs no action of its own: the session the interval
///   started has the interval's end as its planned end, and is completed at
///   exactly that instant by the reconcile step.
public struct RunDueEventsUseCase: Sendable {
    private let schedules: any ScheduleRepository
    private let ledger: any IntervalLedger
    private let calendar: IntervalCalendar
    private let clock: any Clock
    private let events: SessionEventPublisher
    private let logger: Logger
    private let active: ActiveSession
    private let start: StartSessionUseCase
    private let stop: StopSessionUseCase
    /// Held while the pass reconciles: a `start` in another process records
    /// its session and raises its block under it, so the pass never finds
    /// that session between the two steps and raises the block itself (a
    /// "raised the block ..., which was down" after every start). Nil: none.
    private let dataLock: (any DataLock)?

    /// The session is read through its owner, `active`, once per pass.
    public init(schedules: any ScheduleRepository, ledger: any IntervalLedger, calendar: IntervalCalendar, clock: any Clock,
                events: SessionEventPublisher, logger: Logger, active: ActiveSession, start: StartSessionUseCase, stop: StopSessionUseCase,
                dataLock: (any DataLock)? = nil) {
        self.dataLock = dataLock
        self.schedules = schedules
        self.ledger = ledger
        self.calendar = calendar
        self.clock = clock
        self.events = events
        self.logger = logger
        self.active = active
        self.start = start
        self.stop = stop
    }

    public func execute() async throws -> DaemonStep {
        var handled: [DaemonStep.Handled] = []
        var now = clock.now()
        // The pass reconciles once: what it found serves every step after.
        // The pass lowers an orphaned block itself after (`lowerOrphanedBlock`).
        var reconciled = try await reconcile()
        if let completed = reconciled.completed, let due = completed.endedAt {
            let late = now.timeIntervalSince(due)
            events.record(TrackedEvent(name: "session-completed", at: now, properties: [
                "sessionId": .string(completed.id.description), "due": .date(due), "lateMs": .int(Int((late * 1_000).rounded())),
            ]))
            handled.append(.init(action: .sessionCompleted, schedule: nil, due: due, lateness: late))
        }
        // A session stopped on another device sharing the data folder left
        // this machine's block up: only this machine's daemon can lower it.
        do {
            if try await active.lowerOrphanedBlock(after: reconciled) != nil { reconciled.forgetSlot() }
        } catch {
            logger.warning("a block left by a session that ended elsewhere could not be lowered; trying again at the next pass",
                           metadata: ["cause": "\(error)"])
        }
        let all = try await schedules.all().filter { $0.enabled && !$0.weekdays.isEmpty }
        // Instances that ended before the last pass were dealt with then (or
        // before this daemon's first pass, when there was nobody to miss them).
        let watermark = try await ledger.watermark()
        let since = watermark ?? now
        for event in dueEvents(of: all, at: now, endingAfter: since) where try await ledger.claim(event.ledgerKey, at: now) {
            now = clock.now()
            if let outcome = try await handle(event, now: now, reconciled: &reconciled) { handled.append(outcome) }
        }
        // The watermark only bounds how far back a pass looks (claims keep
        // each event once), so it moves when something was handled or an hour
        // has passed: every write wakes the daemon's data watcher, and a write
        // per pass would wake it for ever.
        if !handled.isEmpty || watermark.map({ now.timeIntervalSince($0) > 3_600 }) ?? true {
            try await ledger.advanceWatermark(to: now)
            try await ledger.forget(before: now.addingTimeInterval(-4 * 86_400))
        }
        let current = try await active.current(after: reconciled)
        return DaemonStep(handled: handled, nextDeadline: nextDeadline(after: clock.now(), current: current, schedules: all))
    }

    /// The pass's reconcile, under the data lock when there is one. A lock
    /// held past its bound (a stuck process) delays nothing: the pass
    /// reconciles without it.
    private func reconcile() async throws -> ActiveSession.Reconciled {
        guard let dataLock else { return try await active.reconcile(sweeping: false) }
        do {
            return try await dataLock.exclusively { try await active.reconcile(sweeping: false) }
        } catch StoreError.lockTimeout {
            return try await active.reconcile(sweeping: false)
        }
    }

    /// Every event at or before `now` of the instances that end after `since`.
    private func dueEvents(of schedules: [Schedule], at now: Date, endingAfter since: Date) -> [IntervalEvent] {
        let today = calendar.localDay(of: now)
        let firstDay = min(calendar.localDay(of: since), today) - 1
        var events: [IntervalEvent] = []
        for schedule in schedules {
            for day in max(firstDay, today - 7)...today {
                guard let instance = calendar.instance(of: schedule, onDay: day), instance.end > since else { continue }
                events += calendar.events(of: schedule, instance).filter { $0.at <= now }
            }
        }
        return events.sorted(by: IntervalEvent.precedes)
    }

    /// How late an interval's start may be handled and still count as on
    /// time: its session then begins at the interval's start, so a 40 s
    /// interval is 40 s of focus, not 39.997. Later (the machine was
    /// asleep), the session begins when it really did.
    static let onTime: TimeInterval = 1

    private func handle(_ event: IntervalEvent, now: Date, reconciled: inout ActiveSession.Reconciled) async throws -> DaemonStep.Handled? {
        let schedule = event.schedule, interval = event.interval
        let late = now.timeIntervalSince(event.at)
        func record(_ action: DaemonStep.Handled.Action, _ name: String) -> DaemonStep.Handled {
            events.record(TrackedEvent(name: name, at: now, properties: [
                "schedule": .string(schedule.name), "event": .string(event.kind.rawValue),
                "due": .date(event.at), "lateMs": .int(Int((late * 1_000).rounded())),
            ]))
            return .init(action: action, schedule: schedule.name, due: event.at, lateness: late)
        }
        switch event.kind {
        case .intervalWillStartWarning:
            guard now < interval.start else { return nil }
            await events.interval(.intervalWarning, event, session: nil, at: now)
            return record(.warning, "interval-warning")
        case .intervalWillEndWarning:
            guard now < interval.end, let session = try await startedByThis(interval, schedule, after: reconciled) else { return nil }
            await events.interval(.intervalWarning, event, session: session, at: now)
            return record(.warning, "interval-warning")
        case .intervalDidStart:
            guard now < interval.end else { return record(.intervalMissed, "interval-missed") }
            // A strict interval ends a non-strict session in its way.
            if schedule.strict, let preempted = try await stop.preempt(at: interval.start, after: reconciled) {
                reconciled.forgetSlot()
                logger.notice("a strict interval ended the session in its way", metadata: [
                    "schedule": "\(schedule.name)", "session": "\(preempted.id)",
                ])
            }
            do {
                var plan = SessionPlan(groupName: schedule.name, groupId: schedule.groupId, length: .until(interval.end),
                                       strict: schedule.strict, origin: .schedule(schedule.name),
                                       startAt: late < Self.onTime ? interval.start : nil)
                // Every device's daemon starts this interval: one id, so
                // history records it once.
                plan.id = ScheduledSessionID.of(schedule: schedule.id, intervalStart: interval.start)
                plan.cycle = schedule.cycle
                plan.allowance = schedule.allowance
                let receipt = try await start.execute(plan, after: reconciled)
                reconciled.slotHolds(receipt.session)
                return record(.sessionStarted, "interval-started")
            } catch SessionError.alreadyActive {
                reconciled.forgetSlot()   // another process started one since the pass reconciled
                // The interval's own session, started by another device's
                // daemon sharing the data folder: handled, not skipped (no
                // `interval-skipped` hook for an interval that runs).
                if let running = try await startedByThis(interval, schedule, after: reconciled),
                   running == ScheduledSessionID.of(schedule: schedule.id, intervalStart: interval.start) {
                    logger.info("the interval's session runs, started elsewhere", metadata: ["schedule": "\(schedule.name)"])
                    return nil
                }
                await events.interval(.intervalSkipped, event, session: nil, at: now)
                return record(.intervalSkipped, "interval-skipped")
            } catch SessionError.invalidLength {
                // Less than a second of the interval was left.
                return record(.intervalMissed, "interval-missed")
            }
        case .intervalDidEnd:
            return record(.intervalEnded, "interval-ended")
        }
    }

    /// The active session if this interval started it.
    private func startedByThis(_ interval: IntervalInstance, _ schedule: Schedule,
                               after reconciled: ActiveSession.Reconciled) async throws -> SessionID? {
        guard let session = try await active.current(after: reconciled), session.isActive,
              session.origin == .schedule(schedule.name), session.plannedEnd == interval.end else { return nil }
        return session.id
    }

    private func nextDeadline(after now: Date, current: Session?, schedules: [Schedule]) -> Date? {
        // A session started on a device whose clock disagrees with this
        // one's is judged on that clock: its instants are that clock's,
        // and this machine wakes when its own clock reaches them.
        let judge = current.map { active.clocks.clock(for: $0) } ?? clock
        let judged = judge.now()
        let local = { (instant: Date?) in instant.map { $0.addingTimeInterval(now.timeIntervalSince(judged)) } }
        let sessionEnd = current.flatMap { session -> Date? in
            // An ended session still in the slot: its block could not be
            // lifted (reconcile logged why). Try again in a minute.
            guard session.isActive else { return now.addingTimeInterval(60) }
            // A strict session held by the boot-time clock (the wall clock was
            // moved forward) ends when that clock says so; a countdown to
            // end it early (`unlock delay:`) may run out first.
            let end = session.endOnWallClock(at: judged, boot: clock.bootTime())
            let unlock = session.unlockRequest?.end(at: judged, boot: clock.bootTime())
            // An allowance runs out: the block goes up again on the second.
            let allowance = session.allowanceEnd(at: judged, boot: clock.bootTime())
            return local([end, unlock, allowance].compactMap { $0 }.min())
        }
        // A cycle's break begins or ends: the block follows on the second.
        let phaseEdge = local(current.flatMap { $0.isActive ? $0.nextCycleEdge(at: judged, boot: clock.bootTime()) : nil })
        let next = calendar.upcomingEvents(of: schedules, from: now.addingTimeInterval(0.000_001), count: 1).first?.at
        return [sessionEnd, phaseEdge, next].compactMap { $0 }.min()
    }
}

extension RunDueEventsUseCase: ReconcilesSession {}
