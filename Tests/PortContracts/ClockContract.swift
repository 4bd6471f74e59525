import Domain
import Foundation

/// The rules every `Clock` keeps. The factory returns the clock and a way to
/// let time pass on it: advancing a manual clock, or nothing for a real one
/// (its time passes by itself).
public enum ClockContract {
    public struct Subject: Sendable {
        public var clock: any RetimeShared.Clock
        public var passTime: @Sendable (TimeInterval) async -> Void

        public init(clock: any RetimeShared.Clock, passTime: @escaping @Sendable (TimeInterval) async -> Void) {
            self.clock = clock
            self.passTime = passTime
        }
    }

    public typealias Factory = @Sendable () async throws -> Subject

    public static let checks: [ContractCheck<Factory>] = [
        ContractCheck("sleeping until a past instant returns at once") { make in
            let clock = try await make().clock
            let before = clock.now()
            try await clock.sleep(until: before.addingTimeInterval(-60))
            try await clock.sleep(until: before)
            try require(clock.now().timeIntervalSince(before) < 1, "time barely moved")
        },
        ContractCheck("a sleeper wakes once its deadline is reached, not before") { make in
            let subject = try await make()
            let clock = subject.clock
            let deadline = clock.now().addingTimeInterval(0.05)
            let sleeper = Task { try await clock.sleep(until: deadline); return clock.now() }
            await subject.passTime(0.05)
            let woke = try await sleeper.value
            try require(woke >= deadline, "woke at \(woke.timeIntervalSince(deadline)) s after the deadline")
        },
        ContractCheck("a cancelled sleeper throws CancellationError") { make in
            let clock = try await make().clock
            let sleeper = Task { try await clock.sleep(until: clock.now().addingTimeInterval(3_600)) }
            sleeper.cancel()
            do {
                try await sleeper.value
                try require(false, "sleep returned normally after cancellation")
            } catch is CancellationError {
                return
            }
        },
        ContractCheck("the boot-time clock, where there is one, moves with time and keeps its boot id") { make in
            let subject = try await make()
            guard let before = subject.clock.bootTime() else { return }
            await subject.passTime(0.01)
            let after = try require(subject.clock.bootTime(), "a boot-time reading, then none")
            try requireEqual(after.bootID, before.bootID, "boot id")
            try require(after.seconds >= before.seconds, "boot time went backwards")
        },
        ContractCheck("the awake clock, where there is one, never runs ahead of the boot-time clock: no suspend is told where none was") { make in
            let subject = try await make()
            guard let before = subject.clock.bootTime(), before.awakeSeconds != nil else { return }
            await subject.passTime(0.01)
            let after = try require(subject.clock.bootTime(), "a boot-time reading, then none")
            let awake = try require(after.awakeSeconds, "an awake reading, then none")
            try require(awake >= before.awakeSeconds!, "the awake clock went backwards")
            // Real time passing is not a suspend (a few ms between two reads of the clocks at most).
            try require((after.suspended(since: before) ?? 0) < 0.05, "told \(after.suspended(since: before) ?? 0)s of suspend while awake")
        },
    ]
}

/// Fails the check unless `value` is present; returns it.
func require<T>(_ value: T?, _ message: @autoclosure () -> String,
                file: StaticString = #filePath, line: UInt = #line) throws -> T {
    guard let value else { throw ContractViolation(message: message(), file: file, line: line) }
    return value
}
