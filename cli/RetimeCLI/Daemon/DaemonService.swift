import Adapters
import Domain

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
final class DaemonLockService: DaemonService, @unchecked Sendable {
    let name = "lock"
    private let acquire: @Sendable () throws -> @Sendable () -> Void
    private var release: (@Sendable () -> Void)?

    /// `acquire` takes the lock and returns how to let it go.
    init(acquire: @escaping @Sendable () throws -> @Sendable () -> Void) {
        self.acquire = acquire
    }

    func start() async throws { release = try acquire() }
    func stop() async {
        release?()
        release = nil
    }
}

/// The daemon's services, built from its root; built again when the
/// configuration or the time zone changes; torn down at the end (hooks'
/// and logs' teardowns run in reverse registration order).
final class DaemonContainer: DaemonService, @unchecked Sendable {
    let name = "services"
    private let make: @Sendable () throws -> Container
    private(set) var current: Container?
    /// How many times the services were built (tests count the rebuilds).
    private(set) var builds = 0

    init(make: @escaping @Sendable () throws -> Container) {
        self.make = make
    }

    func start() async throws {
        current = try make()
        builds += 1
    }

    /// Tears the services down and builds them again from the root.
    func rebuild() async throws {
        await current?.teardown()
        current = try make()
        builds += 1
    }

    func stop() async {
        await current?.teardown()
        current = nil
    }

    func resolve<T: Sendable>(_ type: T.Type = T.self) throws -> T {
        guard let current else { throw DaemonError.unavailable("the daemon's services are not built") }
        return try current.resolve(type)
    }
}
