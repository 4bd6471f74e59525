import Domain
import Foundation
import Testing

@Suite("Session status")
struct StatusTests {
    @Test("status reports elapsed, focused, remaining and progress at the clock's instant")
    func status() async throws {
        let world = try await SessionWorld()
        let session = try await world.startWork(.duration(1_000))
        world.clock.advance(by: 250)
        let status = try #require(try await world.status.execute())
        #expect(status.session == session)
        #expect(status.at == world.clock.now())
        #expect(status.elapsed == 250 && status.focused == 250 && status.remaining == 750)
        #expect(status.progress == 0.25)
        #expect(!status.heldByBootClock)
    }

    @Test("a wall clock moved back leaves the wall clock in charge: the session ends later, when both clocks agree")
    func clockMovedBack() async throws {
        let world = try await SessionWorld()
        try await world.startWork(.duration(1_000), strict: true)
        world.clock.advance(by: 250)
        world.clock.setWallClock(to: world.clock.now().addingTimeInterval(-100))
        let status = try #require(try await world.status.execute())
        #expect(!status.heldByBootClock && status.remaining == 850 && status.elapsed == 150)
    }

    @Test("an open-ended session has no remaining time and no progress")
    func openEnded() async throws {
        let world = try await SessionWorld()
        try await world.startWork(.openEnded)
        world.clock.advance(by: 42)
        let status = try #require(try await world.status.execute())
        #expect(status.remaining == nil && status.progress == nil && status.elapsed == 42)
    }

    @Test("no session, no status; an expired one is completed by asking")
    func nothingActive() async throws {
        let world = try await SessionWorld()
        #expect(try await world.status.execute() == nil)
        try await world.startWork(.duration(60))
        world.clock.advance(by: 61)
        #expect(try await world.status.execute() == nil)
        #expect(try await world.ended.count == 1)
    }
}
