import Adapters
import Domain
import Foundation
import PortContracts
import Testing

/// The daemon's pass over due work, driven by a hand-moved clock in UTC.
struct DaemonWorld {
    let world: SessionWorld
    let schedules = InMemoryScheduleRepository()
    let ledger = InMemoryIntervalLedger()
    let calendar = IntervalCalendar(timeZone: .utc)

    init(at instant: String, shield: (any Shield)? = nil) async throws {
        world = try await SessionWorld(shield: shield)
        world.clock.setWallClock(to: Timestamp.parse(instant)!)
    }

    /// A new pass, as a restarted daemon would build it, over the same data.
    var step: RunDueEventsUseCase {
        RunDueEventsUseCase(schedules: schedules, ledger: ledger, calendar: calendar,
                            clock: world.clock, events: world.events, logger: Logger(label: "t", handler: world.logs),
                            active: world.active, start: world.start, stop: world.stop)
    }

    func add(_ name: String, _ from: String, _ to: String, warn: TimeInterval = 0, strict: Bool = false) async throws {
        try await schedules.insert(Schedule(name: name, groupId: world.work.id, from: TimeOfDay(parsing: from)!,
                                            to: TimeOfDay(parsing: to)!, weekdays: Set(Weekday.allCases),
                                            warnSeconds: warn, strict: strict))
    }

    /// Runs the daemon loop until `end`: a pass, then the clock moved to the
    /// deadline it asked for. Returns what was handled, as `HH:MM:SS action schedule`.
    func run(until end: String) async throws -> [String] {
        let stop = Timestamp.parse(end)!
        var log: [String] = []
        while true {
            let step = try await step.execute()
            log += step.handled.map { entry in
                "\(Timestamp.format(entry.due, fractionDigits: 0).dropFirst(11).prefix(8)) \(entry.action.rawValue) \(entry.schedule ?? "-")"
                    + (entry.lateness > 0 ? " late \(Int(entry.lateness))s" : "")
            }
            guard let deadline = step.nextDeadline, deadline <= stop else { break }
            // Time passes: both the wall clock and the boot-time clock move.
            world.clock.advance(by: max(0, deadline.timeIntervalSince(world.clock.now())))
        }
        return log
    }
}

@Suite("The daemon's pass, on a test clock")
struct DaemonStepTests {
    @Test("what a pass handles is recorded once and logged once, in the same order, by the publisher alone (issue 30)")
    func oneOwnerOfEvents() async throws {
        let daemon = try await DaemonWorld(at: "2026-11-23T08:00:00Z")
        try await daemon.add("m", "09:00", "10:00", warn: 300)
        _ = try await daemon.run(until: "2026-11-23T11:00:00Z")
        let tracked = daemon.world.tracker.events.map(\.name)
        #expect(tracked.filter { $0 == "interval-started" }.count == 1 && tracked.contains("session-started"), "\(tracked)")
        // Every log line of an event is the publisher's; none is written twice.
        let logged = daemon.world.logs.entries.filter { $0.label == "test.events" }.map(\.message)
        #expect(logged == tracked, "logged: \(logged)")
        #expect(!daemon.world.logs.entries.contains { $0.label != "test.events" && tracked.contains($0.message) }, "logged elsewhere too")
        let started = try #require(daemon.world.logs.entries.first { $0.message == "interval-started" })
        #expect(started.metadata["schedule"] == "m" && started.metadata["lateMs"] == "0", "\(started.metadata)")
    }

    @Test("an interval's events fire in order on their instants; its session ends exactly at the interval's end")
    func fullInterval() async throws {
        let daemon = try await DaemonWorld(at: "2026-11-23T08:00:00Z")
        try await daemon.add("m", "09:00", "10:00", warn: 300, strict: true)
        let log = try await daemon.run(until: "2026-11-23T11:00:00Z")
        #expect(log == [
            "08:55:00 warning m", "09:00:00 sessionStarted m", "09:55:00 warning m",
            "10:00:00 sessionCompleted -", "10:00:00 intervalEnded m",
        ])
        let session = try #require(try await daemon.world.ended.first)
        #expect(session.origin == .schedule("m") && session.strict && session.outcome == .completed)
        #expect(session.startedAt == Timestamp.parse("2026-11-23T09:00:00Z") && session.endedAt == Timestamp.parse("2026-11-23T10:00:00Z"))
        #expect(daemon.world.tracker.events.map(\.name).contains("interval-warning"))
    }

    @Test("back to back: the first interval's session ends before the next one's starts")
    func backToBack() async throws {
        let daemon = try await DaemonWorld(at: "2026-11-23T08:30:00Z")
        try await daemon.add("a", "09:00", "10:00")
        try await daemon.add("b", "10:00", "11:00")
        let log = try await daemon.run(until: "2026-11-23T10:30:00Z")
        #expect(log == [
            "09:00:00 sessionStarted a", "10:00:00 sessionCompleted -", "10:00:00 intervalEnded a", "10:00:00 sessionStarted b",
        ])
        #expect(try await daemon.world.sessions.current()?.origin == .schedule("b"))
    }

    @Test("an interval that finds a session active is skipped, and says so")
    func skipped() async throws {
        let daemon = try await DaemonWorld(at: "2026-11-23T08:30:00Z")
        try await daemon.add("m", "09:00", "10:00")
        let manual = try await daemon.world.startWork(.openEnded)
        let log = try await daemon.run(until: "2026-11-23T09:30:00Z")
        #expect(log == ["09:00:00 intervalSkipped m"])
        #expect(try await daemon.world.sessions.current()?.id == manual.id)
        #expect(daemon.world.tracker.events.contains { $0.name == "interval-skipped" })
    }

    /// Two daemons sharing a data folder both start an interval: the
    /// session has one id, so the one that comes second finds it running.
    @Test("an interval whose own session another device's daemon started is handled there, not skipped here")
    func startedElsewhereIsNotSkipped() async throws {
        let daemon = try await DaemonWorld(at: "2026-11-23T09:00:00Z")
        try await daemon.add("m", "09:00", "10:00")
        let schedule = try #require(try await daemon.schedules.schedule(named: "m"))
        var plan = SessionPlan(groupName: "m", groupId: schedule.groupId, length: .until(Timestamp.parse("2026-11-23T10:00:00Z")!),
                               strict: false, origin: .schedule("m"), startAt: Timestamp.parse("2026-11-23T09:00:00Z"))
        plan.id = ScheduledSessionID.of(schedule: schedule.id, intervalStart: Timestamp.parse("2026-11-23T09:00:00Z")!)
        let elsewhere = try await daemon.world.start.execute(plan).session
        let log = try await daemon.run(until: "2026-11-23T09:30:00Z")
        #expect(log.isEmpty, "\(log)")
        #expect(!daemon.world.tracker.events.contains { $0.name == "interval-skipped" })
        #expect(try await daemon.world.sessions.current()?.id == elsewhere.id)
    }

    @Test("a strict interval is not dodged: it stops a manual session in its way at its start, and starts its own")
    func strictPreempts() async throws {
        let daemon = try await DaemonWorld(at: "2026-11-23T08:30:00Z")
        try await daemon.add("m", "09:00", "10:00", strict: true)
        let manual = try await daemon.world.startWork(.openEnded)
        let log = try await daemon.run(until: "2026-11-23T09:30:00Z")
        #expect(log == ["09:00:00 sessionStarted m"])
        let stopped = try #require(try await daemon.world.ended.first)
        #expect(stopped.id == manual.id && stopped.outcome == .stopped && stopped.endedAt == Timestamp.parse("2026-11-23T09:00:00Z"))
        let current = try #require(try await daemon.world.sessions.current())
        #expect(current.strict && current.origin == .schedule("m"))
        #expect(try await daemon.world.shieldState?.session == current.id)
    }

    @Test("a strict session already running makes even a strict interval skipped")
    func strictSessionNotPreempted() async throws {
        let daemon = try await DaemonWorld(at: "2026-11-23T08:30:00Z")
        try await daemon.add("m", "09:00", "10:00", strict: true)
        let manual = try await daemon.world.startWork(.duration(7_200), strict: true)
        let log = try await daemon.run(until: "2026-11-23T09:30:00Z")
        #expect(log == ["09:00:00 intervalSkipped m"])
        #expect(try await daemon.world.sessions.current()?.id == manual.id)
    }

    @Test("started in the middle of an interval, the daemon catches up: the session starts, ending on time")
    func catchUpInProgress() async throws {
        let daemon = try await DaemonWorld(at: "2026-11-23T09:30:00Z")
        try await daemon.add("m", "09:00", "10:00", warn: 300)
        let log = try await daemon.run(until: "2026-11-23T09:40:00Z")
        #expect(log == ["09:00:00 sessionStarted m late 1800s"])
        #expect(try await daemon.world.sessions.current()?.plannedEnd == Timestamp.parse("2026-11-23T10:00:00Z"))
    }

    @Test("a daemon a few milliseconds late starts the session at the interval's start: a 40 s interval is 40 s of focus (issue 29)")
    func aFewMillisecondsLate() async throws {
        let daemon = try await DaemonWorld(at: "2026-11-23T08:59:59Z")
        try await daemon.add("m", "09:00:00", "09:00:40")
        daemon.world.clock.advance(by: 1.003)
        _ = try await daemon.step.execute()
        let session = try #require(try await daemon.world.sessions.current())
        #expect(session.startedAt == Timestamp.parse("2026-11-23T09:00:00Z"))
        daemon.world.clock.advance(by: 40)
        _ = try await daemon.step.execute()
        let ended = try #require(try await daemon.world.ended.first)
        #expect(ended.outcome == .completed && ended.focused(at: daemon.world.clock.now()) == 40)
    }

    @Test("a daemon that wakes late (the machine was asleep) starts the session when it really did")
    func lateStartIsTrue() async throws {
        let daemon = try await DaemonWorld(at: "2026-11-23T08:59:59Z")
        try await daemon.add("m", "09:00", "10:00")
        daemon.world.clock.advance(by: 61)
        _ = try await daemon.step.execute()
        #expect(try await daemon.world.sessions.current()?.startedAt == Timestamp.parse("2026-11-23T09:01:00Z"))
    }

    @Test("an interval that began and ended while the daemon was down is recorded as missed, not started")
    func missed() async throws {
        let daemon = try await DaemonWorld(at: "2026-11-23T08:00:00Z")
        try await daemon.add("m", "09:00", "10:00")
        _ = try await daemon.step.execute()                       // the daemon ran at 08:00...
        daemon.world.clock.setWallClock(to: Timestamp.parse("2026-11-23T10:30:00Z")!)   // ...and again at 10:30
        let log = try await daemon.run(until: "2026-11-23T10:31:00Z")
        #expect(log == ["09:00:00 intervalMissed m late 5400s", "10:00:00 intervalEnded m late 1800s"])
        #expect(try await daemon.world.sessions.current() == nil)
        #expect(daemon.world.tracker.events.contains { $0.name == "interval-missed" })
    }

    @Test("a first start reports nothing from before it: there was no daemon to miss it")
    func firstStart() async throws {
        let daemon = try await DaemonWorld(at: "2026-11-23T10:30:00Z")
        try await daemon.add("m", "09:00", "10:00")
        #expect(try await daemon.step.execute().handled.isEmpty)
    }

    @Test("each event is handled once, also by a restarted daemon and after the clock is set back")
    func exactlyOnce() async throws {
        let daemon = try await DaemonWorld(at: "2026-11-23T08:59:00Z")
        try await daemon.add("m", "09:00", "10:00", warn: 120)
        let log = try await daemon.run(until: "2026-11-23T09:00:00Z")
        #expect(log == ["08:58:00 warning m late 60s", "09:00:00 sessionStarted m"], "a warning still ahead of its start is shown late")
        #expect(try await daemon.step.execute().handled.isEmpty, "a restarted daemon handles nothing again")
        daemon.world.clock.setWallClock(to: Timestamp.parse("2026-11-23T08:50:00Z")!)
        let afterJump = try await daemon.run(until: "2026-11-23T09:30:00Z")
        #expect(afterJump.isEmpty, "after a jump back nothing repeats")
        #expect(try await daemon.world.sessions.current()?.origin == .schedule("m"))
    }

    @Test("a jump forward past an interval's end completes the session at that end")
    func jumpForward() async throws {
        let daemon = try await DaemonWorld(at: "2026-11-23T08:59:00Z")
        try await daemon.add("m", "09:00", "10:00")
        _ = try await daemon.run(until: "2026-11-23T09:00:00Z")
        daemon.world.clock.setWallClock(to: Timestamp.parse("2026-11-23T15:00:00Z")!)
        let step = try await daemon.step.execute()
        #expect(step.handled.map(\.action) == [.sessionCompleted, .intervalEnded])
        #expect(try await daemon.world.ended.first?.endedAt == Timestamp.parse("2026-11-23T10:00:00Z"))
    }

    @Test("with the wall clock moved forward, a strict session's deadline follows the boot-time clock")
    func tamperedDeadline() async throws {
        let daemon = try await DaemonWorld(at: "2026-11-23T08:00:00Z")
        try await daemon.world.startWork(.duration(3_600), strict: true)
        daemon.world.clock.setWallClock(to: Timestamp.parse("2026-11-23T12:00:00Z")!)
        let step = try await daemon.step.execute()
        #expect(step.handled.isEmpty)
        #expect(step.nextDeadline == Timestamp.parse("2026-11-23T13:00:00Z"), "an hour of real time is still to run")
    }

    @Test("the next deadline is the earlier of the session's planned end and the next event; none when nothing is due")
    func deadlines() async throws {
        let daemon = try await DaemonWorld(at: "2026-11-23T08:00:00Z")
        #expect(try await daemon.step.execute().nextDeadline == nil)
        try await daemon.world.startWork(.duration(600))
        #expect(try await daemon.step.execute().nextDeadline == Timestamp.parse("2026-11-23T08:10:00Z"))
        try await daemon.add("m", "08:05", "09:00")
        #expect(try await daemon.step.execute().nextDeadline == Timestamp.parse("2026-11-23T08:05:00Z"))
    }
}

/// A data folder shared between devices: a session started here and stopped
/// on another device leaves this machine's block up; this daemon lowers it.
@Suite("The daemon's pass and sessions that end on another device")
struct OrphanedBlockTests {
    @Test("a block whose session left the slot elsewhere is lowered by the next pass; a running session's block is not")
    func lowersABlockWhoseSessionEndedElsewhere() async throws {
        let daemon = try await DaemonWorld(at: "2026-11-23T08:00:00Z")
        let receipt = try await daemon.world.start.execute(SessionPlan(groupName: "work", length: .duration(1_800)))
        _ = try await daemon.step.execute()
        #expect(try await daemon.world.shield.state()?.session == receipt.session.id, "a running session's block stays up")
        // Another device's stop empties the shared slot; its shield is not this one.
        #expect(try await daemon.world.sessions.replace(try await daemon.world.sessions.current(), with: nil))
        _ = try await daemon.step.execute()
        #expect(try await daemon.world.shield.state() == nil)
    }

    @Test("a block of a session this folder's slot never held (the user's other data directory's) is left up")
    func leavesAnotherFoldersBlock() async throws {
        let daemon = try await DaemonWorld(at: "2026-11-23T08:00:00Z")
        let receipt = try await daemon.world.start.execute(SessionPlan(groupName: "work", length: .duration(1_800)))
        #expect(try await daemon.world.sessions.replace(try await daemon.world.sessions.current(), with: nil))
        let other = SessionID()
        try await daemon.world.shield.raise([try Target(parsing: "example.com")], for: other)
        _ = try await daemon.step.execute()
        #expect(try await daemon.world.shield.state()?.session == other, "not \(receipt.session.id)'s")
    }
}
