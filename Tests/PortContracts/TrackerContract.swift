import Domain

/// The rules every `Tracker` keeps: every event kept, in order, intact.
/// Each adapter hands back what it kept through `recorded`, so no check
/// can pass without observing the events.
public enum TrackerContract {
    public struct Subject: Sendable {
        public var tracker: any Tracker
        /// The events kept so far.
        public var recorded: @Sendable () async throws -> [TrackedEvent]

        public init(tracker: any Tracker, recorded: @escaping @Sendable () async throws -> [TrackedEvent]) {
            self.tracker = tracker
            self.recorded = recorded
        }
    }

    public typealias Factory = @Sendable () async throws -> Subject

    static let sample = TrackedEvent(name: "session-started", at: Fixtures.instant(0), properties: [
        "sessionId": "abc", "count": 3, "ratio": .double(0.25), "strict": true, "plannedEnd": .date(Fixtures.instant(1_500)),
    ])

    public static let checks: [ContractCheck<Factory>] = [
        ContractCheck("events are kept in order, every property intact") { make in
            let subject = try await make()
            let second = TrackedEvent(name: "session-ended", at: Fixtures.instant(1_500))
            subject.tracker.track(sample)
            subject.tracker.track(second)
            try requireEqual(try await subject.recorded(), [sample, second], "recorded events")
        },
        ContractCheck("events tracked from many tasks at once are all kept") { make in
            let subject = try await make()
            await withTaskGroup(of: Void.self) { tasks in
                for index in 0..<100 {
                    tasks.addTask { subject.tracker.track(TrackedEvent(name: "e\(index)", at: Fixtures.instant(Double(index)))) }
                }
            }
            try requireEqual(Set(try await subject.recorded().map(\.name)), Set((0..<100).map { "e\($0)" }), "names")
        },
    ]
}
