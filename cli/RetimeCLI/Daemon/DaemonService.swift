import Adapters
import Domain
import Synchronization

/// A part of the daemon with a lifetime, in the spirit of
/// swift-service-lifecycle's `Service`: started in order by a
/// `DaemonServiceGroup`, stopped in reverse order once the daemon ends.
protocol DaemonService: Sendable {
    var name: String { get }
    /// Takes what the service holds, or does its work: the last service of
    /// a group runs the daemon here and returns when it is told to stop.
    func start() async throws
    /// Lets go of what it holds; called once, for each service that started.
    func stop() async
}

/// Runs services as the daemon: each started in order, the last one's
/// start being the daemon's life; then every started service stopped in
/// reverse order, whether the daemon ended by a signal or a failure, so the
/// lock is released last, after the services that needed it are down.
struct DaemonServiceGroup: Sendable {
    let services: [any DaemonService]

    func run() async throws {
        var started: [any DaemonService] = []
        do {
            for service in services {
                try await service.start()
                started.append(service)
            }
        } catch {
            for service in started.reversed() { await service.stop() }
            throw error
        }
        for service in started.reversed() { await service.stop() }
    }
}

/// The single-instance lock of a data directory, held for the daemon's life.
final class DaemonLockService: DaemonService {
    let name = "lock"
    private let acquire: @Sendable () throws -> @Sendable () -> Void
    private let release = Mutex<(@Sendable () -> Void)?>(nil)

    /// `acquire` takes the lock and returns how to let it go.
    init(acquire: @escaping @Sendable () throws -> @Sendable () -> Void) {
        self.acquire = acquire
    }

    func start() async throws {
        let letGo = try acquire()
        release.withLock { $0 = letGo }
    }

    func stop() async {
        release.withLock { letGo in
            letGo?()
            letGo = nil
        }
    }
}

/// The daemon's services, built from its root; built again when the
/// configuration or the time zone changes; torn down at the end (hooks'
/// and logs' teardowns run in reverse registration order).
final class DaemonContainer: DaemonService {
    let name = "services"
    private let make: @Sendable () throws -> Container
    private let state = Mutex<(current: Container?, builds: Int)>((nil, 0))

    init(make: @escaping @Sendable () throws -> Container) {
        self.make = make
    }

    /// The services now; nil before the start and after the stop.
    var current: Container? { state.withLock { $0.current } }
    /// How many times the services were built (tests count the rebuilds).
    var builds: Int { state.withLock { $0.builds } }

    func start() async throws {
        let built = try make()
        state.withLock { $0 = (built, $0.builds + 1) }
    }

    /// Tears the services down and builds them again from the root.
    func rebuild() async throws {
        await current?.teardown()
        try await start()
    }

    func stop() async {
        let old = state.withLock { state -> Container? in
            defer { state.current = nil }
            return state.current
        }
        await old?.teardown()
    }

    func resolve<T: Sendable>(_ type: T.Type = T.self) throws -> T {
        guard let current else { throw DaemonError.unavailable("the daemon's services are not built") }
        return try current.resolve(type)
    }
}
