import Domain
import Foundation

/// The rules every `WakeSignals` keeps: a deadline wakes it, not before it
/// comes, and a change of the data wakes it as one.
public enum WakeSignalsContract {
    public struct Subject: Sendable {
        public var signals: any WakeSignals
        /// The clock it keeps deadlines by.
        public var now: @Sendable () -> Date
        /// Changes the data as a CLI command would.
        public var changeData: @Sendable () throws -> Void

        public init(signals: any WakeSignals, now: @escaping @Sendable () -> Date, changeData: @escaping @Sendable () throws -> Void) {
            self.signals = signals
            self.now = now
            self.changeData = changeData
        }
    }

    public typealias Factory = @Sendable () async throws -> Subject

    public static let checks: [ContractCheck<Factory>] = [
        ContractCheck("a deadline already past wakes it at once") { make in
            let subject = try await make()
            try requireEqual(await subject.signals.wait(until: subject.now().addingTimeInterval(-1)), .deadline, "reason")
        },
        ContractCheck("a deadline ahead wakes it when it has come, not before") { make in
            let subject = try await make()
            let deadline = subject.now().addingTimeInterval(0.15)
            try requireEqual(await subject.signals.wait(until: deadline), .deadline, "reason")
            try require(subject.now() >= deadline.addingTimeInterval(-0.005), "woke at \(subject.now()), before \(deadline)")
        },
        ContractCheck("a change of the data wakes it as a data change, though its deadline is far") { make in
            let subject = try await make()
            try subject.changeData()
            try requireEqual(await subject.signals.wait(until: subject.now().addingTimeInterval(3_600)), .dataChanged, "reason")
        },
    ]
}
