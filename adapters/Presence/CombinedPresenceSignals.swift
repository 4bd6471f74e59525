import Domain
import FoundationEssentials
import Synchronization

/// Several presence sources heard as one: logind (sleep, lock, its idle
/// hint) beside the compositor's own idle time. The state is the strongest
/// any source says (asleep over locked over idle over present); idle is
/// dated from the earliest input stop among the sources that say idle. A
/// source that is unavailable (its changes end before they begin) does not
/// count; one that ends while followed (its bus or compositor gone) ends
/// the whole stream, as the port says a lost source does, so the follower
/// (the daemon's `PresenceService`) follows them all anew after its backoff
/// and picks the lost one up again when it is back.
public struct CombinedPresenceSignals: PresenceSignals {
    let sources: [any PresenceSignals]

    public init(_ sources: [any PresenceSignals]) {
        self.sources = sources
    }

    /// Available when any source is: the ones followed, and why the others
    /// are not; unavailable with every source's reason when none is.
    public func availability() async -> PresenceAvailability {
        var followed: [String] = [], not: [String] = []
        for source in sources {
            switch await source.availability() {
            case .available(let name): followed.append(name)
            case .unavailable(let reason): not.append(reason)
            }
        }
        guard !followed.isEmpty else { return .unavailable(reason: not.joined(separator: "; ")) }
        let also = not.isEmpty ? "" : " (\(not.joined(separator: "; ")))"
        return .available(source: followed.joined(separator: " and ") + also)
    }

    public func changes() -> AsyncStream<PresenceChange> {
        let (stream, continuation) = AsyncStream.makeStream(of: PresenceChange.self, bufferingPolicy: .unbounded)
        // Asked now, not in the task: each source's first element is the state at this call.
        let streams = sources.map { $0.changes() }
        let merger = Merger(count: streams.count, continuation: continuation)
        let task = Task {
            await withTaskGroup(of: Void.self) { group in
                for (index, changes) in streams.enumerated() {
                    group.addTask {
                        for await change in changes { merger.heard(change, from: index) }
                        merger.ended(index)
                    }
                }
            }
            continuation.finish()
        }
        continuation.onTermination = { _ in task.cancel() }
        return stream
    }

    /// Each source's latest word, and the one state they add up to.
    final class Merger: Sendable {
        private struct State {
            var latest: [PresenceChange?]
            var ended: [Bool]
            var yielded: PresenceChange.State?
        }

        private let state: Mutex<State>
        private let continuation: AsyncStream<PresenceChange>.Continuation

        init(count: Int, continuation: AsyncStream<PresenceChange>.Continuation) {
            state = Mutex(State(latest: Array(repeating: nil, count: count), ended: Array(repeating: false, count: count)))
            self.continuation = continuation
        }

        func heard(_ change: PresenceChange, from index: Int) {
            update { $0.latest[index] = change }
        }

        func ended(_ index: Int) {
            let lost = state.withLock { $0.latest[index] != nil }
            guard !lost else {
                continuation.finish()
                return
            }
            update { state in state.ended[index] = true }
        }

        private func update(_ change: (inout State) -> Void) {
            state.withLock { state in
                change(&state)
                // The first element waits for every source's first (or its end).
                let told = zip(state.latest, state.ended).allSatisfy { $0 != nil || $1 }
                guard told, let combined = Self.combined(state.latest.compactMap { $0 }), combined.state != state.yielded else { return }
                state.yielded = combined.state
                continuation.yield(combined)
            }
        }

        static func combined(_ changes: [PresenceChange]) -> PresenceChange? {
            let ranked: [PresenceChange.State] = [.asleep, .locked, .idle, .present]
            guard let strongest = ranked.first(where: { state in changes.contains { $0.state == state } }) else { return nil }
            let dates = changes.filter { $0.state == strongest }.map(\.since)
            // Idle since input first stopped; any other state since it last began.
            let since = strongest == .idle ? dates.min() : dates.max()
            return PresenceChange(state: strongest, since: since ?? Date())
        }
    }
}
