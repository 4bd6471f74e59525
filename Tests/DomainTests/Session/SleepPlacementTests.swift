import Adapters
import Domain
import Foundation
import Testing

/// A sleep nothing heard (no daemon) is placed where the readings allow:
/// right after the session's last reading of the clocks, not just before
/// the command that noticed it; so a report by day gives the focused time
/// to the day it was done. On the manual clock in a fixed zone (UTC+2,
/// `Etc/GMT-2`): whatever the hour or zone the test runs in.
@Suite("Away time: an unheard sleep placed after the last reading")
struct SleepPlacementTests {
    /// 23:00 local on 14 January 2027, in UTC+2.
    static let eleven = Timestamp.parse("2027-01-14T21:00:00Z")!

    func world() async throws -> SessionWorld {
        let world = try await SessionWorld()
        world.clock.setWallClock(to: Self.eleven)
        return world
    }

    /// Focused hours by local day of what `world` has in history.
    func byDay(_ world: SessionWorld) async throws -> [String: Double] {
        let report = ReportBuilder(grouping: .day, timeZone: SystemTimeZone.named("Etc/GMT-2")!, groupNames: [:])
            .build(try await world.ended, since: nil, until: nil)
        return Dictionary(uniqueKeysWithValues: report.buckets.map { ($0.key, $0.focusedSeconds / 3_600) })
    }

    func asleep(_ world: SessionWorld) async throws -> [(String, String)] {
        let session = try #require(try await world.sessions.current())
        return session.awayStretches.filter { $0.reason == .asleep }.map { (Timestamp.format($0.start), Timestamp.format($0.end!)) }
    }

    @Test("from 23:00, a status at 23:30, asleep 23:40 to 01:40, noticed at 02:00: the 2 h go from 23:30, 30 minutes to each day")
    func afterTheLastReading() async throws {
        let world = try await world()
        try await world.startWork(.duration(4 * 3_600))
        world.clock.advance(by: 1_800)
        _ = try await world.active.reconcile()   // `status` at 23:30: the clocks read
        world.clock.advance(by: 600)
        world.clock.suspend(for: 2 * 3_600)      // the lid closed at 23:40, opened at 01:40
        world.clock.advance(by: 1_200)
        _ = try await world.active.reconcile()   // the first command after, at 02:00
        let placed = try await asleep(world)
        #expect(placed.count == 1)
        #expect(placed.first?.0 == Timestamp.format(Timestamp.parse("2027-01-14T21:30:00Z")!), "right after the reading at 23:30: \(placed)")
        #expect(placed.first?.1 == Timestamp.format(Timestamp.parse("2027-01-14T23:30:00Z")!), "two hours long: \(placed)")
        _ = try await world.stop.execute()
        #expect(try await byDay(world) == ["2027-01-14": 0.5, "2027-01-15": 0.5])
    }

    @Test("with no reading since the start at 23:00, a 2 h sleep noticed at 02:00 is placed from the start: the hour left is the next day's")
    func afterTheStart() async throws {
        let world = try await world()
        try await world.startWork(.duration(4 * 3_600))
        world.clock.advance(by: 1_800)
        world.clock.suspend(for: 2 * 3_600)
        world.clock.advance(by: 1_800)
        _ = try await world.active.reconcile()
        #expect(try await asleep(world).first?.0 == Timestamp.format(Self.eleven))
        _ = try await world.stop.execute()
        #expect(try await byDay(world) == ["2027-01-14": 0, "2027-01-15": 1])
    }

    @Test("a process that looks more often than every 10 minutes records a reading no more often: a follower's minute line writes nothing")
    func readingsAreSparse() async throws {
        let world = try await world()
        let started = try await world.startWork(.duration(4 * 3_600))
        for _ in 0..<9 {
            world.clock.advance(by: 60)
            _ = try await world.active.reconcile()
        }
        #expect(try await world.sessions.current() == started, "nine minutes of looking: no write")
        world.clock.advance(by: 60)
        _ = try await world.active.reconcile()
        let stamped = try #require(try await world.sessions.current()?.lastReading)
        #expect(stamped.at == Self.eleven.addingTimeInterval(600))
        world.clock.advance(by: 60)
        _ = try await world.active.reconcile()
        #expect(try await world.sessions.current()?.lastReading == stamped)
    }

    @Test("a reading of another boot is not used: after a reboot nothing is guessed")
    func anotherBoot() async throws {
        let world = try await world()
        try await world.startWork(.duration(4 * 3_600))
        world.clock.reboot(after: 60)
        world.clock.advance(by: 900)
        _ = try await world.active.reconcile()
        #expect(try await world.sessions.current()?.lastReading == nil)
    }
}
