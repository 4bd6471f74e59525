import Adapters
import Domain
import Synchronization

/// A root's services as a service of its group: the container built at
/// start (nothing in it is built until the root's entry asks), built
/// again on demand (the daemon's reload), torn down when the group stops
/// (the teardowns in reverse registration order), after every service
/// started later, which used it, has stopped.
final class ContainerService: Service {
    let name = "services"
    private let make: @Sendable () throws -> Container
    private let state = Mutex<(current: Container?, builds: Int)>((nil, 0))

    init(make: @escaping @Sendable () throws -> Container) {
        self.make = make
    }

    var announcesStart: Bool { true }

    /// The container now; nil before the start and after the stop.
    var current: Container? { state.withLock { $0.current } }
    /// How many times the container was built (tests count the rebuilds).
    var builds: Int { state.withLock { $0.builds } }

    /// The container now, or why there is none.
    func container() throws -> Container {
        guard let current else { throw DaemonError.unavailable("the services are not built") }
        return current
    }

    func run() async throws {
        try build()
        ServiceLifecycle.started()
        await ServiceLifecycle.shutdownRequested()
        let old = state.withLock { state -> Container? in
            defer { state.current = nil }
            return state.current
        }
        await old?.teardown()
    }

    /// Tears the services down and builds them again from the root.
    func rebuild() async throws {
        await current?.teardown()
        try build()
    }

    private func build() throws {
        let built = try make()
        state.withLock { $0 = (built, $0.builds + 1) }
    }
}
