import Adapters
import Domain
import Foundation
import Testing

/// Away time (issue 33): suspended time never counts as focused; idle or
/// locked longer than `away.threshold` is out of focused time until the
/// user keeps it (`keep-away`). All on the manual clock.
@Suite("Away time: suspend, idle and lock out of focused time")
struct AwayTimeTests {
    static let threshold: TimeInterval = 300

    func record(_ world: SessionWorld, _ state: PresenceChange.State, since: Date? = nil) async throws {
        let presence = RecordPresenceUseCase(sessions: world.sessions, clock: world.clock)
        try await presence.execute(PresenceChange(state: state, since: since ?? world.clock.now()), threshold: Self.threshold)
    }

    func current(_ world: SessionWorld) async throws -> Session { try #require(try await world.sessions.current()) }

    @Test("the clocks tell suspended time: Δboot − Δawake in one boot, nothing across a reboot or without the awake clock")
    func suspendedBetweenReadings() {
        let start = BootTimeReading(bootID: "b", seconds: 100, awakeSeconds: 90)
        #expect(BootTimeReading(bootID: "b", seconds: 7_300, awakeSeconds: 3_690).suspended(since: start) == 3_600)
        #expect(BootTimeReading(bootID: "other", seconds: 7_300, awakeSeconds: 3_690).suspended(since: start) == nil)
        #expect(BootTimeReading(bootID: "b", seconds: 7_300).suspended(since: start) == nil)
        let clock = ManualClock()
        let before = clock.bootTime()!
        clock.advance(by: 600)
        clock.suspend(for: 3_600)
        #expect(clock.bootTime()!.suspended(since: before) == 3_600)
    }

    @Test("a suspend of 1 h during a 2 h session leaves 1 h focused, with no daemon to hear it")
    func suspendWithoutDaemon() async throws {
        let world = try await SessionWorld()
        try await world.startWork(.duration(7_200))
        world.clock.advance(by: 1_800)
        world.clock.suspend(for: 3_600)
        // status sees it before anything records it
        let status = try #require(try await world.status.execute())
        #expect(status.focused == 1_800)
        #expect(status.asleep == 3_600)
        world.clock.advance(by: 1_800)
        let completed = try #require(try await world.active.reconcile().completed)
        #expect(completed.focused(at: world.clock.now()) == 3_600)
        #expect(try await world.ended.first?.focused(at: world.clock.now()) == 3_600)
    }

    @Test("a lid closed for the night near the session's end does not erase the session: only sleep that must have been inside counts")
    func sleepAfterTheEnd() async throws {
        let world = try await SessionWorld()
        try await world.startWork(.duration(3_600))
        world.clock.advance(by: 3_000)
        world.clock.suspend(for: 8 * 3_600)   // asleep from 10 minutes before the end, through the night
        let completed = try #require(try await world.active.reconcile().completed)
        // 8 h of sleep since the start, of which all but 10 minutes can be
        // after the end: those 10 minutes count out, the rest of it does not.
        #expect(completed.focused(at: world.clock.now()) == 3_000)
    }

    @Test("sleep a command noticed during the session is recorded then, and still counts once the session has ended")
    func noticedThenRecorded() async throws {
        let world = try await SessionWorld()
        try await world.startWork(.duration(7_200))
        world.clock.advance(by: 1_800)
        world.clock.suspend(for: 3_600)
        _ = try await world.active.reconcile()   // any command
        #expect(try await current(world).asleepTime(at: world.clock.now()) == 3_600)
        world.clock.advance(by: 1_800 + 600)
        let completed = try #require(try await world.active.reconcile().completed)
        #expect(completed.focused(at: world.clock.now()) == 3_600)
    }

    @Test("a suspend the daemon heard is counted once, not again from the clocks")
    func suspendHeardOnce() async throws {
        let world = try await SessionWorld()
        try await world.startWork(.duration(7_200))
        world.clock.advance(by: 600)
        try await record(world, .asleep)
        world.clock.suspend(for: 3_600)
        try await record(world, .present)
        let session = try await current(world)
        #expect(session.awayStretches.count == 1)
        world.clock.advance(by: 600)
        let receipt = try await world.stop.execute()
        #expect(receipt.session.focused(at: world.clock.now()) == 1_200)
    }

    @Test("locked just under the threshold is not away; just over it is, from the lock", arguments: [299.0, 300.0, 301.0])
    func threshold(locked seconds: TimeInterval) async throws {
        let world = try await SessionWorld()
        try await world.startWork(.duration(3_600))
        world.clock.advance(by: 600)
        let lockedAt = world.clock.now()
        try await record(world, .locked)
        world.clock.advance(by: seconds)
        try await record(world, .present)
        world.clock.advance(by: 600)
        let session = try await current(world)
        let away = seconds >= Self.threshold ? seconds : 0
        #expect(session.awayTime(at: world.clock.now()) == away)
        #expect(session.focused(at: world.clock.now()) == 1_200 + seconds - away)
        #expect(session.lastAway?.start == (away > 0 ? lockedAt : nil))
    }

    @Test("idle counts from when input stopped, not from the signal; a lock inside it goes on with the same stretch")
    func idleSinceEarlier() async throws {
        let world = try await SessionWorld()
        try await world.startWork(.duration(3_600))
        world.clock.advance(by: 900)
        let inputStopped = world.clock.now().addingTimeInterval(-240)
        try await record(world, .idle, since: inputStopped)
        world.clock.advance(by: 120)
        try await record(world, .locked)
        world.clock.advance(by: 480)
        try await record(world, .present)
        let session = try await current(world)
        #expect(session.awayStretches.count == 1)
        let stretch = try #require(session.lastAway)
        #expect(stretch.reason == .idle)
        #expect(stretch.start == inputStopped)
        #expect(stretch.end == world.clock.now())
        #expect(session.focused(at: world.clock.now()) == 1_500 - 840)
    }

    @Test("keep-away keeps the last stretch as focused, --all every one; with nothing to keep it says away.none")
    func keepAway() async throws {
        let world = try await SessionWorld()
        try await world.startWork(.duration(7_200))
        let keep = KeepAwayUseCase(sessions: world.sessions, clock: world.clock, active: world.active)
        await #expect(throws: SessionError.nothingAway) { try await keep.execute(all: false) }
        #expect(SessionError.nothingAway.code == "away.none")
        for _ in 0..<2 {
            world.clock.advance(by: 600)
            try await record(world, .locked)
            world.clock.advance(by: 600)
            try await record(world, .present)
        }
        #expect(try await current(world).focused(at: world.clock.now()) == 1_200)
        let kept = try await keep.execute(all: false)
        #expect(kept.seconds == 600)
        #expect(kept.session.focused(at: world.clock.now()) == 1_800)
        #expect(try await keep.execute(all: true).seconds == 600)
        #expect(try await current(world).focused(at: world.clock.now()) == 2_400)
        await #expect(throws: SessionError.nothingAway) { try await keep.execute(all: true) }
    }

    @Test("sleep is never kept as focused")
    func sleepNotKept() async throws {
        let world = try await SessionWorld()
        try await world.startWork(.duration(7_200))
        world.clock.advance(by: 600)
        world.clock.suspend(for: 1_200)
        try await record(world, .present)
        let keep = KeepAwayUseCase(sessions: world.sessions, clock: world.clock, active: world.active)
        await #expect(throws: SessionError.nothingAway) { try await keep.execute(all: true) }
        #expect(try await current(world).focused(at: world.clock.now()) == 600)
    }

    @Test("away while the session ends: the stretch closes at its end; history and report count it out")
    func historyTotals() async throws {
        let world = try await SessionWorld()
        try await world.startWork(.duration(3_600))
        world.clock.advance(by: 2_400)
        try await record(world, .locked)
        world.clock.advance(by: 7_200)
        let completed = try #require(try await world.active.reconcile().completed)
        #expect(completed.awayStretches.first?.end == completed.plannedEnd)
        let ended = try #require(try await world.ended.first)
        #expect(ended.focused(at: world.clock.now()) == 2_400)
        let report = ReportBuilder(grouping: .day, timeZone: .utc, groupNames: [:]).build([ended], since: nil, until: nil)
        #expect(report.totalFocusedSeconds == 2_400)
    }

    @Test("away overlapping a break is not counted twice")
    func awayInBreak() {
        let start = Date(timeIntervalSince1970: 1_800_000_000)
        var session = Session(groupId: GroupID(), startedAt: start, plannedEnd: start.addingTimeInterval(3_600))
        session = try! session.pausing(at: start.addingTimeInterval(600)).resuming(at: start.addingTimeInterval(1_200))
        session = session.awayBegins(.locked, since: start.addingTimeInterval(900), threshold: 300).awayEnds(at: start.addingTimeInterval(1_500))
        let end = start.addingTimeInterval(3_600)
        #expect(session.awayTime(at: end) == 300)
        #expect(session.focused(at: end) == 3_600 - 600 - 300)
    }
}

/// Editing an ended session keeps its away time inside the new times.
@Suite("Away time survives history edits")
struct AwayEditTests {
    @Test("edit --to earlier keeps the part of a counted stretch still inside, counted; a tag edit keeps them all")
    func editKeepsAway() async throws {
        let world = try await SessionWorld()
        try await world.startWork(.duration(3_600))
        let startedAt = world.clock.now()
        world.clock.advance(by: 1_200)
        let presence = RecordPresenceUseCase(sessions: world.sessions, clock: world.clock)
        try await presence.execute(PresenceChange(state: .locked, since: world.clock.now()), threshold: 300)
        world.clock.advance(by: 1_200)
        try await presence.execute(PresenceChange(state: .present, since: world.clock.now()), threshold: 300)
        world.clock.advance(by: 1_200)
        let ended = try #require(try await world.active.reconcile().completed)
        #expect(ended.focused(at: world.clock.now()) == 2_400)
        let edit = EditSessionUseCase(history: world.history, groups: GroupRepositoryLookup(groups: world.groups), clock: world.clock,
                                      journal: InMemoryHistoryJournal(), dataLock: InMemoryDataLock())
        let tagged = try await edit.execute(.id(ended.id), changes: .init(addTags: ["deep"]))
        #expect(tagged.awayStretches == ended.awayStretches)
        // Cut to 40 minutes: 20 of focus, then 20 of the lock.
        let cut = try await edit.execute(.id(ended.id), changes: .init(to: startedAt.addingTimeInterval(2_400)))
        #expect(cut.focused(at: world.clock.now()) == 1_200)
    }
}

/// `away.threshold`: a duration from 30s to 8h, stored in its short form.
@Suite("The away.threshold setting")
struct AwayThresholdSettingTests {
    @Test("durations in range are kept in their short form", arguments: [("5m", "5m"), ("90s", "1m30s"), ("PT10M", "10m"), ("30s", "30s"), ("8h", "8h")])
    func valid(_ text: String, _ stored: String) throws {
        #expect(try SettingKey.awayThreshold.validate(text) == stored)
    }

    @Test("anything else is refused with the key and the range", arguments: ["29s", "8h1s", "0", "-5m", "soon", ""])
    func invalid(_ text: String) {
        #expect(throws: SettingError.self) { try SettingKey.awayThreshold.validate(text) }
    }

    @Test("the default is five minutes, and a hand-edited value that does not parse counts as it")
    func defaults() {
        #expect(Settings(stored: [:], dataDirectory: "/d").awayThreshold == 300)
        #expect(Settings(stored: ["away.threshold": "90s"], dataDirectory: "/d").awayThreshold == 90)
        #expect(Settings(stored: ["away.threshold": "often"], dataDirectory: "/d").awayThreshold == 300)
    }
}
