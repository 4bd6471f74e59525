import Domain
import FoundationEssentials
import Synchronization

/// Services a one-shot command built, held until the process exits instead
/// of freed: the `retime` binary calls `exit` as soon as the command has
/// printed, and freeing every service's object graph first (the container,
/// its slots, the services and what they hold) cost about 150 k instructions (4 %)
/// of a `stop` for nothing (docs/performance.md). Teardown still runs
/// (snapshots made, files closed); only the freeing is skipped. Callers
/// that run many commands in one process (tests) do not keep them.
enum KeptUntilExit {
    private static let kept = Mutex<[Container]>([])

    static func keep(_ container: Container) {
        kept.withLock { $0.append(container) }
    }
}
