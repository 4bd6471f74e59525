import Domain
import Foundation

/// The rules every `EventHooks` adapter keeps. The factory gives the
/// adapter and a way to read back, in order, the events its hooks heard
/// (waiting for `count` of them, for adapters that deliver in the
/// background).
public enum EventHooksContract {
    public struct Subject: Sendable {
        public var hooks: any EventHooks
        public var heard: @Sendable (_ count: Int) async throws -> [SessionEvent]

        public init(hooks: any EventHooks, heard: @escaping @Sendable (Int) async throws -> [SessionEvent]) {
            self.hooks = hooks
            self.heard = heard
        }
    }

    public typealias Factory = @Sendable () async throws -> Subject

    /// A sample event of `kind` with every field set.
    public static func event(_ kind: SessionEvent.Kind, at seconds: TimeInterval) -> SessionEvent {
        SessionEvent(kind: kind, at: Fixtures.instant(seconds), sessionId: kind == .intervalSkipped ? nil : SessionID(),
                     groupName: "Deep Work", targets: ["slack.com", "app:mail", "news.example.org"].map { try! Target(parsing: $0) },
                     plannedEnd: Fixtures.instant(seconds + 1_500), origin: kind.rawValue.hasPrefix("interval") ? .schedule("mornings") : .manual,
                     outcome: kind == .sessionEnded ? .stopped : nil,
                     warning: kind == .intervalWarning ? .intervalWillEndWarning : nil)
    }

    public static let checks: [ContractCheck<Factory>] = [
        ContractCheck("every kind of event reaches its hook with everything a hook is told") { make in
            let subject = try await make()
            let events = SessionEvent.Kind.allCases.enumerated().map { event($1, at: Double($0)) }
            for event in events { subject.hooks.run(event) }
            let heard = try await subject.heard(events.count).sorted { $0.at < $1.at }
            try requireEqual(heard, events, "events as the hooks heard them")
        },
        ContractCheck("an adapter with a hook for every event listens to every event, before and after one ran") { make in
            let subject = try await make()
            for kind in SessionEvent.Kind.allCases { try require(subject.hooks.listens(to: kind), "listens to \(kind)") }
            subject.hooks.run(event(.sessionStarted, at: 0))
            _ = try await subject.heard(1)
            for kind in SessionEvent.Kind.allCases { try require(subject.hooks.listens(to: kind), "listens to \(kind) after a run") }
        },
        ContractCheck("an event with no group, targets or session still reaches its hook") { make in
            let subject = try await make()
            let bare = SessionEvent(kind: .intervalSkipped, at: Fixtures.instant(0), sessionId: nil, groupName: nil, targets: [],
                                    plannedEnd: nil, origin: .schedule("evenings"))
            subject.hooks.run(bare)
            try requireEqual(try await subject.heard(1), [bare], "the bare event")
        },
    ]
}
