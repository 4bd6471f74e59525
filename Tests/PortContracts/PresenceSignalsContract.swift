import Domain
import Foundation

/// The rules every `PresenceSignals` keeps: its first element is the state
/// when `changes()` is called, the changes follow in the order they
/// happened, a source that goes away ends them, and an unavailable source
/// says why and finishes at once.
public enum PresenceSignalsContract {
    /// A source, and a way to make the machine's state what a check says
    /// (a stand-in logind's signals, a script); `set` returns once the
    /// source's side has sent it.
    /// A source that tells only some states (a compositor's idle time:
    /// idle and present) names them in `tells`; the checks then script only
    /// those, and `set` is never asked for another.
    public struct Subject: Sendable {
        public var signals: any PresenceSignals
        public var set: @Sendable (PresenceChange.State) async throws -> Void
        /// Takes the source away while followed (its bus's daemon killed,
        /// its compositor gone).
        public var lose: @Sendable () async throws -> Void
        public var tells: Set<PresenceChange.State>

        public init(signals: any PresenceSignals, tells: Set<PresenceChange.State> = [.present, .idle, .locked, .asleep],
                    set: @escaping @Sendable (PresenceChange.State) async throws -> Void,
                    lose: @escaping @Sendable () async throws -> Void) {
            self.signals = signals
            self.set = set
            self.lose = lose
            self.tells = tells
        }

        /// `script`, run from present, without the states this source does
        /// not tell and without the non-changes that leaves.
        func told(_ script: [PresenceChange.State]) -> [PresenceChange.State] {
            script.filter(tells.contains).reduce(into: []) { kept, state in if (kept.last ?? .present) != state { kept.append(state) } }
        }
    }

    public typealias Factory = @Sendable () async throws -> Subject

    /// How long a change may take to arrive before the check calls it lost:
    /// a bus round trip, but in the whole parallel suite the test's task can
    /// wait tens of seconds for a thread of the cooperative pool (other
    /// suites' synchronous tests sleep on them). A bound on lost, not on slow.
    static let arrival: TimeInterval = 120

    public static let checks: [ContractCheck<Factory>] = [
        ContractCheck("it is available, and its first element is the state at the call") { make in
            let subject = try await make()
            guard case .available = await subject.signals.availability() else {
                throw ContractViolation(message: "unavailable: \(await subject.signals.availability())", file: #filePath, line: #line)
            }
            // A source that tells no lock (a compositor's idle notification,
            // which counts from the request and so cannot be idle at it) tells present.
            let state: PresenceChange.State = subject.tells.contains(.locked) ? .locked : .present
            try await subject.set(state)
            var changes = subject.signals.changes().makeAsyncIterator()
            try requireEqual(try await next(&changes)?.state, state, "first element")
        },
        ContractCheck("changes come in the order they happened, each once") { make in
            let subject = try await make()
            try await subject.set(.present)
            var changes = subject.signals.changes().makeAsyncIterator()
            try requireEqual(try await next(&changes)?.state, .present, "first element")
            let script = subject.told([.locked, .present, .idle, .present, .asleep, .present, .idle])
            for state in script { try await subject.set(state) }
            var seen: [PresenceChange.State] = []
            for _ in script { seen.append(try await next(&changes)?.state ?? .present) }
            try requireEqual(seen, script, "the changes")
        },
        ContractCheck("an idle state is dated from when input stopped, not later") { make in
            let subject = try await make()
            try await subject.set(.present)
            var changes = subject.signals.changes().makeAsyncIterator()
            _ = try await next(&changes)
            let before = Date()
            try await subject.set(.idle)
            let idle = try await next(&changes)
            try requireEqual(idle?.state, .idle, "state")
            try require((idle?.since ?? .distantFuture) <= Date(), "idle since \(String(describing: idle?.since)), after it was heard")
            try require(abs((idle?.since ?? .distantPast).timeIntervalSince(before)) < 600, "idle since \(String(describing: idle?.since))")
        },
        ContractCheck("a source that goes away while followed ends its changes, so its follower knows to follow it anew") { make in
            let subject = try await make()
            try await subject.set(.present)
            var changes = subject.signals.changes().makeAsyncIterator()
            _ = try await next(&changes)
            try await subject.lose()
            // Ended, not waiting for a source that is gone (`next` fails the check after `arrival`).
            let after = try await next(&changes)
            try require(after == nil, "an element after the loss: \(String(describing: after))")
        },
    ]

    /// The rules of a source that is not there (no bus, no logind, no session).
    public static let unavailableChecks: [ContractCheck<@Sendable () async throws -> any PresenceSignals>] = [
        ContractCheck("it says why not, and its changes finish at once, empty") { make in
            let signals = try await make()
            guard case .unavailable(let reason) = await signals.availability() else {
                throw ContractViolation(message: "available", file: #filePath, line: #line)
            }
            try require(!reason.isEmpty, "a reason")
            var changes = signals.changes().makeAsyncIterator()
            // Finished, not waiting for a source that is not there (`next` fails the check after `arrival`).
            let first = try await next(&changes)
            try require(first == nil, "an element: \(String(describing: first))")
        },
    ]

    /// The next element, or a violation if none comes in time.
    static func next(_ changes: inout AsyncStream<PresenceChange>.Iterator, file: StaticString = #filePath, line: UInt = #line) async throws -> PresenceChange? {
        let box = IteratorBox(changes)
        let element = try await withThrowingTaskGroup(of: PresenceChange?.self) { group in
            group.addTask { await box.next() }
            group.addTask {
                try await Task.sleep(for: .seconds(arrival))
                throw ContractViolation(message: "no change within \(arrival) s", file: file, line: line)
            }
            defer { group.cancelAll() }
            return try await group.next() ?? nil
        }
        changes = box.iterator
        return element
    }
}

/// An iterator a child task may advance.
private final class IteratorBox: @unchecked Sendable {
    var iterator: AsyncStream<PresenceChange>.Iterator
    init(_ iterator: AsyncStream<PresenceChange>.Iterator) { self.iterator = iterator }
    func next() async -> PresenceChange? { await iterator.next() }
}
