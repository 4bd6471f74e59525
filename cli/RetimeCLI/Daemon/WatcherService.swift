import Adapters

/// A watcher of the daemon (its signals, its data, the time zone) as a
/// service: started after the services it may wake, stopped before them,
/// so nothing is posted to a daemon that is already down.
struct WatcherService: DaemonService {
    let watcher: any WakeWatcher
    let mailbox: WakeMailbox

    var name: String { watcher.name }

    func start() async throws { try watcher.start(posting: mailbox) }

    func stop() async { await watcher.stop() }
}
