import Adapters
import Domain
import Foundation
import Testing

/// Ending a strict session early by the unlock method (config `unlock`;
/// cli.md, "Ending a strict session early"), on the hand-driven clock.
@Suite("Unlock: ending a strict session early")
struct UnlockTests {
    /// A world whose `stop` and `pause` ask the unlock method `method`.
    struct UnlockWorld {
        let world: SessionWorld
        let settings = StoreSettings(store: InMemoryKeyValueStore())

        init(_ method: String) async throws {
            world = try await SessionWorld()
            try await settings.set(method, for: "unlock")
        }

        var unlock: StrictUnlock {
            StrictUnlock(settings: settings, override: world.auth.override, sessions: world.sessions, shields: world.shields, clocks: SessionClocks(clock: world.clock, devices: FixedDevices(this: "this-device")),
                         events: world.events, logger: Logger(label: "test", handler: world.logs))
        }
        var stop: StopSessionUseCase {
            StopSessionUseCase(sessions: world.sessions, groups: GroupRepositoryLookup(groups: world.groups), history: world.history,
                               shields: world.shields, events: world.events, active: world.active,
                               override: world.auth.override, unlock: unlock)
        }
        var pause: PauseSessionUseCase {
            PauseSessionUseCase(sessions: world.sessions, groups: GroupRepositoryLookup(groups: world.groups), shields: world.shields,
                                events: world.events, active: world.active, override: world.auth.override,
                                unlock: unlock)
        }
        var cancel: CancelSessionUseCase {
            CancelSessionUseCase(sessions: world.sessions, groups: GroupRepositoryLookup(groups: world.groups), shields: world.shields,
                                 active: world.active, override: world.auth.override, unlock: unlock)
        }
        var current: Session? { get async throws { try await world.sessions.current() } }
    }

    /// Runs `body` and returns the countdown it was answered with.
    static func countdown(_ body: () async throws -> Void) async -> (UnlockRequest.Action, Date, Bool)? {
        do { try await body() } catch SessionError.unlockCountdown(let action, let until, let started) { return (action, until, started) } catch {
            Issue.record("expected a countdown, got \(error)")
        }
        return nil
    }

    @Test("the unlock values parse to their stored form; bad ones say why")
    func parsing() throws {
        #expect(try UnlockMethod(parsing: "passcode") == .passcode)
        #expect(try UnlockMethod(parsing: " Never ") == .never)
        #expect(try UnlockMethod(parsing: "delay:5m") == .delay(300))
        #expect(try UnlockMethod(parsing: "delay:1h30m").description == "delay:1h30m")
        #expect(try UnlockMethod(parsing: "delay:PT90S").description == "delay:1m30s")
        #expect(try UnlockMethod(parsing: "typing:16") == .typing(16))
        #expect(try UnlockMethod(parsing: "typing:512") == .typing(512))
        for bad in ["", "delay", "delay:", "delay:soon", "delay:0s", "delay:25h", "typing:15", "typing:513", "typing:x", "passcode:1", "sometimes"] {
            #expect(throws: UnlockMethodError.self, "\(bad)") { try UnlockMethod(parsing: bad) }
            #expect(throws: SettingError.self, "\(bad)") { try SettingKey.unlock.validate(bad) }
        }
        #expect(SettingKey.unlock.defaultValue(dataDirectory: "/d") == "passcode")
    }

    @Test("delay: stop starts a countdown; the session stops at its end, not before; asking again does not restart it")
    func delayStops() async throws {
        let w = try await UnlockWorld("delay:5m")
        try await w.world.startWork(.duration(3_600), strict: true)
        let started = await Self.countdown { _ = try await w.stop.execute() }
        #expect(started?.0 == .stop && started?.2 == true)
        let end = w.world.clock.now().addingTimeInterval(300)
        #expect(started?.1 == end)
        let running = try await w.current?.isActive == true, blocked = try await w.world.shieldState != nil
        #expect(running && blocked)

        w.world.clock.advance(by: 200)
        let again = await Self.countdown { _ = try await w.stop.execute() }
        #expect(again?.1 == end && again?.2 == false, "asking again does not restart it")
        w.world.clock.advance(by: 99)
        _ = try await w.world.active.reconcile()
        let stillRunning = try await w.current?.isActive == true, stillBlocked = try await w.world.shieldState != nil
        #expect(stillRunning && stillBlocked)

        w.world.clock.advance(by: 1.5)
        _ = try await w.world.active.reconcile()
        let ended = try await w.world.ended
        #expect(ended.count == 1 && ended.first?.outcome == .stopped && ended.first?.endedAt == end)
        let emptied = try await w.current == nil, lowered = try await w.world.shieldState == nil
        #expect(emptied && lowered)
        #expect(w.world.hooks.events.map(\.kind) .contains(.unlockRequested))
        #expect(w.world.eventNames.contains("unlock-elapsed"))
    }

    @Test("delay: withdraw cancels the countdown; the session runs on; a new request starts afresh")
    func withdraw() async throws {
        let w = try await UnlockWorld("delay:1m")
        try await w.world.startWork(.duration(3_600), strict: true)
        _ = await Self.countdown { _ = try await w.stop.execute() }
        w.world.clock.advance(by: 30)
        let going = try await w.unlock.withdraw()
        #expect(going.unlockRequest == nil)
        w.world.clock.advance(by: 60)
        _ = try await w.world.active.reconcile()
        #expect(try await w.current?.isActive == true)
        #expect(w.world.hooks.events.map(\.kind).contains(.unlockWithdrawn))
        await #expect(throws: SessionError.noUnlockCountdown) { _ = try await w.unlock.withdraw() }
        let fresh = await Self.countdown { _ = try await w.stop.execute() }
        #expect(fresh?.2 == true && fresh?.1 == w.world.clock.now().addingTimeInterval(60))
    }

    @Test("delay: pause starts a countdown; at its end a break opens and the block is lifted")
    func delayPauses() async throws {
        let w = try await UnlockWorld("delay:10s")
        try await w.world.startWork(.duration(3_600), strict: true)
        let started = await Self.countdown { _ = try await w.pause.execute() }
        #expect(started?.0 == .pause)
        let end = w.world.clock.now().addingTimeInterval(10)
        w.world.clock.advance(by: 12)
        _ = try await w.world.active.reconcile()
        let paused = try #require(try await w.current)
        #expect(paused.isPaused, "\(paused)")
        #expect(paused.breaks.last?.start == end && paused.unlockRequest == nil)
        #expect(try await w.world.shieldState == nil)
        // Paused already: another pause is refused as such, and starts no countdown.
        await #expect(throws: SessionError.alreadyPaused) { _ = try await w.pause.execute() }
        #expect(try await w.current?.unlockRequest == nil)
    }

    @Test("delay: a pause countdown that runs out on a session a passcode paused meanwhile only ends")
    func pauseCountdownOnPausedSession() async throws {
        let w = try await UnlockWorld("delay:10s")
        try await w.world.startWork(.duration(3_600), strict: true)
        _ = await Self.countdown { _ = try await w.pause.execute() }
        let counting = try #require(try await w.current)
        #expect(try await w.world.sessions.replace(counting, with: try counting.pausing(at: w.world.clock.now())))
        w.world.clock.advance(by: 11)
        _ = try await w.world.active.reconcile()
        let settled = try #require(try await w.current)
        #expect(settled.isPaused && settled.breaks.count == 1 && settled.unlockRequest == nil)
    }

    @Test("delay: a wall clock moved forward does not shorten the countdown; after a reboot the wall clock decides")
    func movedClock() async throws {
        let w = try await UnlockWorld("delay:5m")
        try await w.world.startWork(.duration(3_600), strict: true)
        _ = await Self.countdown { _ = try await w.stop.execute() }
        let requested = w.world.clock.now()
        w.world.clock.setWallClock(to: requested.addingTimeInterval(1_800))   // 30 minutes on; no boot time passed
        _ = try await w.world.active.reconcile()
        #expect(try await w.current?.isActive == true, "the moved clock does not shorten the countdown")
        let status = try #require(try await w.world.status.execute())
        #expect(status.unlockEndsAt == w.world.clock.now().addingTimeInterval(300))
        w.world.clock.advance(by: 300)
        _ = try await w.world.active.reconcile()
        let gone = try await w.current == nil, outcome = try await w.world.ended.first?.outcome
        #expect(gone && outcome == .stopped)
        #expect(try await w.world.ended.first?.endedAt == w.world.clock.now(), "it stopped when the boot-time clock said so")

        // A reboot: the wall clock alone decides, as for the session's end.
        let v = try await UnlockWorld("delay:5m")
        try await v.world.startWork(.duration(3_600), strict: true)
        _ = await Self.countdown { _ = try await v.stop.execute() }
        v.world.clock.reboot(after: 100)
        _ = try await v.world.active.reconcile()
        #expect(try await v.current?.isActive == true)
        v.world.clock.advance(by: 201)
        _ = try await v.world.active.reconcile()
        #expect(try await v.current == nil)
    }

    @Test("delay: the daemon's next deadline is the countdown's end")
    func deadline() async throws {
        let w = try await UnlockWorld("delay:5m")
        try await w.world.startWork(.duration(3_600), strict: true)
        _ = await Self.countdown { _ = try await w.stop.execute() }
        let status = try #require(try await w.world.status.execute())
        #expect(status.unlockEndsAt == w.world.clock.now().addingTimeInterval(300))
        #expect(status.session.unlockRequest?.action == .stop)
    }

    @Test("never: no early end, not even with the passcode; the session ends at its time")
    func never() async throws {
        let w = try await UnlockWorld("never")
        try await w.world.auth.set.execute(Passcode("1234"))
        try await w.world.startWork(.duration(600), strict: true)
        await #expect(throws: SessionError.self) { _ = try await w.stop.execute(passcode: Passcode("1234")) }
        do { _ = try await w.stop.execute(passcode: Passcode("1234")) } catch SessionError.unlockNever {} catch {
            Issue.record("expected unlockNever, got \(error)")
        }
        await #expect(throws: SessionError.self) { _ = try await w.pause.execute(passcode: Passcode("1234")) }
        await #expect(throws: SessionError.self, "cancel is no way around it") { _ = try await w.cancel.execute(passcode: Passcode("1234")) }
        #expect(try await w.current?.isActive == true)
        w.world.clock.advance(by: 601)
        _ = try await w.world.active.reconcile()
        #expect(try await w.world.ended.first?.outcome == .completed)
    }

    @Test("typing: the stop needs the text typed back, as long as asked")
    func typing() async throws {
        let w = try await UnlockWorld("typing:32")
        try await w.world.startWork(.duration(600), strict: true)
        await #expect(throws: SessionError.unlockNeedsTyping(count: 32)) { _ = try await w.stop.execute() }
        await #expect(throws: SessionError.unlockNeedsTyping(count: 32)) { _ = try await w.stop.execute(typed: 16) }
        await #expect(throws: SessionError.self, "cancel is no way around it") { _ = try await w.cancel.execute() }
        let stopped = try await w.stop.execute(typed: 32)
        #expect(stopped.session.outcome == .stopped)
    }

    @Test("passcode (the default): today's rule; a sessions that is not strict is never asked")
    func passcode() async throws {
        let w = try await UnlockWorld("passcode")
        try await w.world.startWork(.duration(600), strict: true)
        await #expect(throws: SessionError.strict(until: w.world.clock.now().addingTimeInterval(600))) { _ = try await w.stop.execute() }
        let v = try await UnlockWorld("never")
        try await v.world.startWork(.duration(600))
        #expect(try await v.stop.execute().session.outcome == .stopped)
    }

    @Test("unlock cannot change while a strict session runs, even to the same value or unset")
    func lockedDuringStrictSession() async throws {
        let world = try await SessionWorld()
        let settings = StoreSettings(store: InMemoryKeyValueStore())
        let strict = StrictUntil()
        let configure = ConfigureSettingUseCase(settings: settings, strict: strict, override: world.auth.override, dataLock: InMemoryDataLock(),
                                                reading: ReadSettingsUseCase(settings: settings, dataDirectory: "/d"))
        try await configure.set("unlock", to: "delay:5m")
        strict.until = world.clock.now().addingTimeInterval(600)
        for value in ["passcode", "never", "delay:5m"] {
            await #expect(throws: SettingError.self) { try await configure.set("unlock", to: value) }
        }
        await #expect(throws: SettingError.self) { try await configure.unset("unlock") }
        #expect(try await settings.value(for: "unlock") == "delay:5m")
    }

    /// A strict session that runs until `until` (nil: none).
    final class StrictUntil: StrictSessionQuery, @unchecked Sendable {
        var until: Date?
        func strictUntil() async throws -> Date? { until }
    }
}
