import Domain
import Foundation

/// The rules of `DaemonPresence`.
public enum DaemonPresenceContract {
    /// The presence, and a way to start and stop "the daemon" (whatever the
    /// adapter watches for).
    public struct Subject: Sendable {
        public var presence: any DaemonPresence
        public var start: @Sendable () throws -> Void
        public var stop: @Sendable () -> Void
        /// The pid a running daemon must be reported with.
        public var pid: Int32

        public init(presence: any DaemonPresence, start: @escaping @Sendable () throws -> Void, stop: @escaping @Sendable () -> Void, pid: Int32) {
            self.presence = presence
            self.start = start
            self.stop = stop
            self.pid = pid
        }
    }

    public typealias Factory = @Sendable () async throws -> Subject

    public static let checks: [ContractCheck<Factory>] = [
        ContractCheck("none runs, then one runs (its pid, since a moment ago), then none again") { make in
            let subject = try await make()
            try require(subject.presence.running() == nil, "running() before a start")
            let before = Date()
            try subject.start()
            let running = subject.presence.running()
            try requireEqual(running?.pid, subject.pid, "pid while it runs")
            if let since = running?.since { try require(abs(since.timeIntervalSince(before)) < 60, "since \(since), started at \(before)") }
            subject.stop()
            try require(subject.presence.running() == nil, "running() after a stop")
        },
    ]
}
