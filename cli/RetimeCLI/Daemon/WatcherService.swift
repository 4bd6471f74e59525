import Adapters

/// A watcher of the daemon (its data, the time zone) as a service:
/// started after the services it may wake, stopped before them, so
/// nothing is posted to a daemon that is already down.
struct WatcherService: Service {
    let watcher: any WakeWatcher
    let mailbox: WakeMailbox

    var name: String { watcher.name }
    var announcesStart: Bool { true }

    func run() async throws {
        try watcher.start(posting: mailbox)
        ServiceLifecycle.started()
        await ServiceLifecycle.shutdownRequested()
        await watcher.stop()
    }
}
