#if os(Linux)
import Domain
import Foundation
import Synchronization

/// A presence source followed by a test, as the daemon follows it: every
/// change it said, in order, and whether its stream ended.
final class FollowedPresence: Sendable {
    private final class Heard: Sendable {
        let changes = Mutex<[PresenceChange]>([])
        let finished = Atomic<Bool>(false)
    }

    private let heard = Heard()
    private let task: Task<Void, Never>

    var all: [PresenceChange] { heard.changes.withLock { $0 } }
    var ended: Bool { heard.finished.load(ordering: .acquiring) }

    /// Asks for the changes now (their first element is the state at this call).
    init(_ signals: any PresenceSignals) {
        let stream = signals.changes(), heard = heard
        task = Task {
            for await change in stream { heard.changes.withLock { $0.append(change) } }
            heard.finished.store(true, ordering: .releasing)
        }
    }

    /// Stops following (the stream's end cleans the source up).
    func cancel() { task.cancel() }

    /// Whether `condition` holds within `seconds`, asked every 20 ms.
    static func within(_ seconds: Double, _ condition: () -> Bool) async -> Bool {
        let deadline = Date().addingTimeInterval(seconds)
        while Date() < deadline {
            if condition() { return true }
            try? await Task.sleep(for: .milliseconds(20))
        }
        return condition()
    }
}
#endif
