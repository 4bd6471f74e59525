import Adapters
import Domain
import Foundation
import Testing

@Suite("ManualClock: time that moves only when told")
struct ManualClockTests {
    @Test("a sleeper stays asleep until the clock reaches its deadline")
    func sleeperWaitsForDeadline() async throws {
        let clock = ManualClock()
        let deadline = clock.now().addingTimeInterval(10)
        let sleeper = Task { try await clock.sleep(until: deadline); return clock.now() }
        await clock.waitForSleepers(1)
        clock.advance(by: 9.999)
        #expect(clock.sleeperCount == 1)
        #expect(clock.pendingDeadlines == [deadline])
        clock.advance(by: 0.001)
        #expect(try await sleeper.value == deadline)
        #expect(clock.sleeperCount == 0)
    }

    @Test("one advance past several deadlines wakes every due sleeper, leaving later ones")
    func severalSleepers() async throws {
        let clock = ManualClock()
        let start = clock.now()
        let sleepers = [5.0, 1, 3, 20].map { offset in
            Task { try await clock.sleep(until: start.addingTimeInterval(offset)) }
        }
        await clock.waitForSleepers(4)
        clock.advance(by: 5)
        for sleeper in sleepers.prefix(3) { try await sleeper.value }
        #expect(clock.pendingDeadlines == [start.addingTimeInterval(20)])
        sleepers[3].cancel()
        await #expect(throws: CancellationError.self) { try await sleepers[3].value }
        #expect(clock.sleeperCount == 0)
    }

    @Test("moving the wall clock wakes due sleepers but leaves the boot-time clock")
    func wallClockJump() async throws {
        let clock = ManualClock()
        let boot = try #require(clock.bootTime())
        let deadline = clock.now().addingTimeInterval(7_200)
        let sleeper = Task { try await clock.sleep(until: deadline) }
        await clock.waitForSleepers()
        clock.setWallClock(to: deadline.addingTimeInterval(1))
        try await sleeper.value
        #expect(clock.bootTime() == boot)
        clock.advance(by: 5)
        #expect(clock.bootTime()?.seconds == boot.seconds + 5)
    }

    @Test("a task cancelled before it sleeps throws at once")
    func cancelledFirst() async throws {
        let clock = ManualClock()
        let sleeper = Task {
            withUnsafeCurrentTask { $0?.cancel() }
            try await clock.sleep(until: clock.now().addingTimeInterval(60))
        }
        await #expect(throws: CancellationError.self) { try await sleeper.value }
        #expect(clock.sleeperCount == 0)
    }
}
