@testable import Adapters
import Domain
import Foundation
import PortContracts
import Testing

/// logind beside the compositor's idle time, heard as one source: the
/// strongest state any says, idle from the earliest input stop, and a
/// source that is missing not counting, and one lost ending the changes.
@Suite("PresenceSignals: sources combined")
struct CombinedPresenceTests {
    @Test(arguments: PresenceSignalsContract.checks)
    func contract(_ check: ContractCheck<PresenceSignalsContract.Factory>) async throws {
        try await check.run {
            let clock = ManualClock(now: Date())
            let system = ScriptedPresenceSignals(clock: clock), desktop = ScriptedPresenceSignals(clock: clock)
            return .init(signals: CombinedPresenceSignals([system, desktop, UnavailablePresenceSignals(reason: "no display")]),
                         set: { system.send($0) }, lose: { system.lose() })
        }
    }

    @Test(arguments: PresenceSignalsContract.unavailableChecks)
    func unavailable(_ check: ContractCheck<@Sendable () async throws -> any PresenceSignals>) async throws {
        try await check.run { CombinedPresenceSignals([UnavailablePresenceSignals(reason: "no logind"), UnavailablePresenceSignals(reason: "no display")]) }
    }

    @Test("availability names every source followed, and why the others are not")
    func availability() async {
        let clock = ManualClock()
        let both = CombinedPresenceSignals([ScriptedPresenceSignals(clock: clock, availability: .available(source: "logind (session 2)")),
                                            ScriptedPresenceSignals(clock: clock, availability: .available(source: "the compositor's kwin idle"))])
        #expect(await both.availability() == .available(source: "logind (session 2) and the compositor's kwin idle"))
        let one = CombinedPresenceSignals([ScriptedPresenceSignals(clock: clock, availability: .available(source: "logind (session 2)")),
                                           UnavailablePresenceSignals(reason: "no Wayland display")])
        #expect(await one.availability() == .available(source: "logind (session 2) (no Wayland display)"))
        let none = CombinedPresenceSignals([UnavailablePresenceSignals(reason: "no logind"), UnavailablePresenceSignals(reason: "no Wayland display")])
        #expect(await none.availability() == .unavailable(reason: "no logind; no Wayland display"))
    }

    @Test("idle when either says so, from the earlier stop; locked over idle; present only when both are")
    func union() async throws {
        let clock = ManualClock(now: Date(timeIntervalSince1970: 1_800_000_000))
        let system = ScriptedPresenceSignals(clock: clock), desktop = ScriptedPresenceSignals(clock: clock)
        var changes = CombinedPresenceSignals([system, desktop]).changes().makeAsyncIterator()
        #expect(await changes.next()?.state == .present)
        let stopped = clock.now()
        clock.advance(by: 30)
        desktop.send(.idle, since: stopped)
        #expect(await changes.next() == PresenceChange(state: .idle, since: stopped))
        clock.advance(by: 60)
        // logind's idle hint too, dated later: still one idle stretch, not a change.
        system.send(.idle, since: stopped.addingTimeInterval(20))
        system.send(.locked)
        let locked = clock.now()
        #expect(await changes.next() == PresenceChange(state: .locked, since: locked))
        clock.advance(by: 60)
        system.send(.present)
        // The compositor still says idle: idle, from when input stopped.
        #expect(await changes.next() == PresenceChange(state: .idle, since: stopped))
        clock.advance(by: 5)
        desktop.send(.present)
        #expect(await changes.next() == PresenceChange(state: .present, since: clock.now()))
    }

    @Test("a source lost while followed ends the changes (the follower follows all anew); one that never began does not count")
    func ending() async throws {
        let clock = ManualClock(now: Date(timeIntervalSince1970: 1_800_000_000))
        let system = ScriptedPresenceSignals(clock: clock)
        let (ending, end) = AsyncStream.makeStream(of: PresenceChange.self)
        end.yield(PresenceChange(state: .present, since: clock.now()))
        let (never, nothing) = AsyncStream.makeStream(of: PresenceChange.self)
        nothing.finish()
        var changes = CombinedPresenceSignals([system, Finite(stream: ending), Finite(stream: never)]).changes().makeAsyncIterator()
        #expect(await changes.next()?.state == .present, "a source with nothing to say does not hold the others back")
        end.yield(PresenceChange(state: .idle, since: clock.now()))
        #expect(await changes.next()?.state == .idle)
        end.finish()
        #expect(await changes.next() == nil, "the compositor gone while followed: the changes end, to be followed anew")
    }

    /// A source that says what a test yields, once.
    struct Finite: PresenceSignals {
        let stream: AsyncStream<PresenceChange>
        func availability() async -> PresenceAvailability { .available(source: "finite") }
        func changes() -> AsyncStream<PresenceChange> { stream }
    }
}
