import FoundationEssentials
import Synchronization

/// What a running service hears from its group, through a task-local
/// handle (as swift-service-lifecycle's graceful shutdown does): that it
/// is to stop, and that the process is to reload. It tells the group when
/// it has started.
enum ServiceLifecycle {
    @TaskLocal static var handle: ServiceHandle?

    /// Lets the group start the next service (see `Service.announcesStart`).
    static func started() { handle?.started() }

    /// Returns once the group asks the service to stop, or its task is
    /// cancelled (at once if either has happened already).
    static func shutdownRequested() async {
        let handle = handle ?? ServiceHandle(index: -1, events: nil)
        await withTaskCancellationHandler {
            await withCheckedContinuation { (resumed: CheckedContinuation<Void, Never>) in
                handle.onShutdown { _ in resumed.resume() }
            }
        } onCancel: {
            handle.requestShutdown(signal: nil)
        }
    }

    /// Runs `operation`, calling `onShutdown` (with the signal that asked
    /// for it, if one did) when the group asks the service to stop, at once
    /// if it already has, and `onReload` at each reload the group passes on.
    static func withHandlers<T>(onShutdown: @escaping @Sendable (Int32?) -> Void, onReload: @escaping @Sendable () -> Void = {},
                                operation: () async throws -> T) async rethrows -> T {
        guard let handle else { return try await operation() }
        let reload = handle.onReload(onReload)
        defer { handle.removeReload(reload) }
        handle.onShutdown(onShutdown)
        return try await withTaskCancellationHandler(operation: operation) { handle.requestShutdown(signal: nil) }
    }
}

/// One service's line to its group: the group's requests in, the
/// service's start out.
final class ServiceHandle: Sendable {
    let index: Int
    private let events: AsyncStream<GroupEvent>.Continuation?
    private let state = Mutex(State())

    private struct State {
        /// Set once the group asked the service to stop, with the signal that did.
        var shutdown: Int32?? = nil
        var shutdownHandlers: [@Sendable (Int32?) -> Void] = []
        var reloadHandlers: [Int: @Sendable () -> Void] = [:]
        var nextReload = 0
    }

    init(index: Int, events: AsyncStream<GroupEvent>.Continuation?) {
        self.index = index
        self.events = events
    }

    func started() { events?.yield(.started(index)) }

    /// Calls `handler` when the service is asked to stop; at once if it was.
    func onShutdown(_ handler: @escaping @Sendable (Int32?) -> Void) {
        let asked = state.withLock { state -> Int32?? in
            if state.shutdown == nil { state.shutdownHandlers.append(handler) }
            return state.shutdown
        }
        if let signal = asked { handler(signal) }
    }

    /// Asks the service to stop: every shutdown handler runs, once.
    func requestShutdown(signal: Int32?) {
        let handlers = state.withLock { state -> [@Sendable (Int32?) -> Void] in
            guard state.shutdown == nil else { return [] }
            state.shutdown = .some(signal)
            defer { state.shutdownHandlers = [] }
            return state.shutdownHandlers
        }
        handlers.forEach { $0(signal) }
    }

    func onReload(_ handler: @escaping @Sendable () -> Void) -> Int {
        state.withLock { state in
            defer { state.nextReload += 1 }
            state.reloadHandlers[state.nextReload] = handler
            return state.nextReload
        }
    }

    func removeReload(_ id: Int) { state.withLock { _ = $0.reloadHandlers.removeValue(forKey: id) } }

    /// Passes a reload on to the service's handlers.
    func reload() {
        let handlers = state.withLock { Array($0.reloadHandlers.values) }
        handlers.forEach { $0() }
    }
}

/// What a group waits for while it runs its services.
enum GroupEvent: Sendable {
    case started(Int)
    case finished(Int, (any Error)?)
    case signal(Int32)
    case deadline(Int)
    case cancelled
}
