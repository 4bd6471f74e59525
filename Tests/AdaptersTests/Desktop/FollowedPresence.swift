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
    /// Seconds this task spent waiting for a thread of the cooperative
    /// pool do not count: the follower's task waits for the same two
    /// threads, and a full parallel run once held them for minutes (a
    /// bound on lost, not on a starved suite).
    static func within(_ seconds: Double, _ condition: () -> Bool) async -> Bool {
        var left = seconds
        while left > 0 {
            if condition() { return true }
            let asleep = Date()
            try? await Task.sleep(for: .milliseconds(20))
            left -= min(Date().timeIntervalSince(asleep), 0.1)
        }
        return condition()
    }
}
#endif
