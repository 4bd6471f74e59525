/// A service that holds something for the group's life: takes it at
/// start (a lock, a watcher posting to the daemon's mailbox), says it has
/// started, and lets it go when the group stops, after every service
/// started later has stopped.
struct HoldingService: Service {
    let name: String
    /// Takes what the service holds; returns how to let it go.
    let take: @Sendable () async throws -> @Sendable () async -> Void

    var announcesStart: Bool { true }

    func run() async throws {
        let letGo = try await take()
        ServiceLifecycle.started()
        await ServiceLifecycle.shutdownRequested()
        await letGo()
    }
}
