import Domain
import Synchronization

/// A process's death at one of its writes, for a simulation that runs many
/// "processes" in one (the fleet simulation in the tests): the writes of a
/// task under a plan count down, and the one that reaches zero puts only a
/// part of its bytes (or none, before a rename) and fails, as does every
/// write after it, so nothing more lands, as after a SIGKILL. Nil outside
/// such a test: one task-local read per write, nothing else.
public final class SimulatedCrash: Sendable {
    /// The plan of the task at hand, if any.
    @TaskLocal public static var plan: SimulatedCrash?

    private struct State {
        var writesLeft: Int
        var fraction: Double
        var crashed = false
    }

    private let state: Mutex<State>

    /// Dies at the `write`-th write from now (1: the first), keeping
    /// `fraction` (0...1) of that write's bytes.
    public init(atWrite write: Int, keeping fraction: Double) {
        state = Mutex(State(writesLeft: max(1, write), fraction: min(1, max(0, fraction))))
    }

    /// Whether the process has died.
    public var crashed: Bool { state.withLock { $0.crashed } }

    /// Before a write of `count` bytes: nil to go on, else how many bytes
    /// to write before dying (then `death` is thrown).
    func cut(_ count: Int) -> Int? {
        state.withLock { state in
            if state.crashed { return 0 }
            state.writesLeft -= 1
            guard state.writesLeft <= 0 else { return nil }
            state.crashed = true
            return Int(Double(count) * state.fraction)
        }
    }

    static func death(_ path: String) -> StoreError { .notWritable(path: path, reason: "the process was killed (a simulated crash)") }

    /// Before a step that is all or nothing (a rename, a link): throws when
    /// the process dies there.
    static func check(_ path: String) throws {
        guard let plan, plan.cut(1) != nil else { return }
        throw death(path)
    }
}
