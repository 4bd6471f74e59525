import Domain
import FoundationEssentials
#if canImport(Glibc)
import Glibc
#endif
import Synchronization

/// A clock that moves only when told: the test double that makes timing
/// logic testable without sleeping (like NIO's embedded event loop).
///
/// `advance(by:)` moves the wall clock and the boot-time clock together, as
/// real time passing does; `setWallClock(to:)` moves the wall clock alone, as
/// a user changing the system time does. Sleepers whose deadline is reached
/// resume in deadline order.
public final class ManualClock: RetimeShared.Clock {
    private struct Sleeper {
        var deadline: Date
        var continuation: CheckedContinuation<Void, any Error>
    }

    private struct State {
        var now: Date
        var bootSeconds: Double
        var awakeSeconds: Double
        var bootID: String
        var sleepers: [UUID: Sleeper] = [:]
        var cancelledBeforeSleeping: Set<UUID> = []
        var sleeperWaiters: [(count: Int, continuation: CheckedContinuation<Void, Never>)] = []
    }

    private let state: Mutex<State>

    public init(now: Date = Date(timeIntervalSince1970: 1_800_000_000), bootID: String = "manual-boot") {
        state = Mutex(State(now: now, bootSeconds: 1_000, awakeSeconds: 1_000, bootID: bootID))
    }

    public func now() -> Date { state.withLock { $0.now } }

    public func bootTime() -> BootTimeReading? {
        state.withLock { BootTimeReading(bootID: $0.bootID, seconds: $0.bootSeconds, awakeSeconds: $0.awakeSeconds) }
    }

    /// Lets `interval` pass: both clocks move, due sleepers wake.
    public func advance(by interval: TimeInterval) {
        precondition(interval >= 0, "time does not run backwards; use setWallClock(to:)")
        wake { $0.now += interval; $0.bootSeconds += interval; $0.awakeSeconds += interval }
    }

    /// The machine sleeps for `interval`: the wall and boot-time clocks
    /// move, the awake clock does not (as `CLOCK_MONOTONIC` stops).
    public func suspend(for interval: TimeInterval) {
        precondition(interval >= 0, "a suspend lasts a while")
        wake { $0.now += interval; $0.bootSeconds += interval }
    }

    /// Moves the wall clock alone, forward or back, as `date -s` would.
    public func setWallClock(to instant: Date) {
        wake { $0.now = instant }
    }

    /// A reboot: the machine was off for `offTime` (the wall clock moves on),
    /// then started again with a new boot id and its boot-time clock at a
    /// few seconds.
    public func reboot(after offTime: TimeInterval, bootID: String = "manual-boot-\(UUID().uuidString.prefix(8))") {
        wake { $0.now += offTime; $0.bootSeconds = 5; $0.awakeSeconds = 5; $0.bootID = bootID }
    }

    /// How many tasks are sleeping on this clock.
    public var sleeperCount: Int { state.withLock { $0.sleepers.count } }

    /// The deadlines tasks are sleeping until, earliest first.
    public var pendingDeadlines: [Date] { state.withLock { $0.sleepers.values.map(\.deadline) }.sorted() }

    /// Suspends until at least `count` tasks sleep on this clock, so a test can
    /// advance time knowing the code under test is waiting.
    public func waitForSleepers(_ count: Int = 1) async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let ready = state.withLock { state in
                guard state.sleepers.count < count else { return true }
                state.sleeperWaiters.append((count, continuation))
                return false
            }
            if ready { continuation.resume() }
        }
    }

    public func sleep(until deadline: Date) async throws {
        try Task.checkCancellation()
        let id = UUID()
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
                enum Outcome { case wait, due, cancelled }
                let (outcome, waiters) = state.withLock { state -> (Outcome, [CheckedContinuation<Void, Never>]) in
                    if state.cancelledBeforeSleeping.remove(id) != nil { return (.cancelled, []) }
                    if deadline <= state.now { return (.due, []) }
                    state.sleepers[id] = Sleeper(deadline: deadline, continuation: continuation)
                    return (.wait, Self.readyWaiters(&state))
                }
                switch outcome {
                case .wait: waiters.forEach { $0.resume() }
                case .due: continuation.resume()
                case .cancelled: continuation.resume(throwing: CancellationError())
                }
            }
        } onCancel: {
            let sleeper = state.withLock { state in
                let sleeper = state.sleepers.removeValue(forKey: id)
                if sleeper == nil { state.cancelledBeforeSleeping.insert(id) }
                return sleeper
            }
            sleeper?.continuation.resume(throwing: CancellationError())
        }
    }

    private func wake(_ change: (inout State) -> Void) {
        let due = state.withLock { state -> [Sleeper] in
            change(&state)
            let due = state.sleepers.filter { $0.value.deadline <= state.now }
            for id in due.keys { state.sleepers.removeValue(forKey: id) }
            return due.values.sorted { $0.deadline < $1.deadline }
        }
        due.forEach { $0.continuation.resume() }
    }

    private static func readyWaiters(_ state: inout State) -> [CheckedContinuation<Void, Never>] {
        let count = state.sleepers.count
        let ready = state.sleeperWaiters.filter { $0.count <= count }.map(\.continuation)
        state.sleeperWaiters.removeAll { $0.count <= count }
        return ready
    }
}
