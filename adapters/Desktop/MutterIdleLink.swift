#if os(Linux)
import Domain
import FoundationEssentials
import Synchronization

/// GNOME's idle monitor (`MutterIdleMonitor`) followed over the session
/// bus for as long as a presence stream lives. Connected at the start;
/// none when no session bus is named or it cannot be reached then (logind
/// alone). When the bus goes away under it (`systemctl --user restart
/// dbus`, a new login of a lingering user), the desktop's word is dropped
/// (logind still rules) and the bus is reached again after
/// `ReconnectBackoff`'s delays, the monitor followed anew if it answers.
final class MutterIdleLink: Sendable {
    private let environment: [String: String]
    /// Gets when input stopped (idle) or nil (active, or nothing known).
    private let report: @Sendable (Date?) -> Void
    private let state = Mutex<(connection: BusConnection?, retry: Task<Void, Never>?, ended: Bool)>((nil, nil, false))

    init(environment: [String: String], report: @escaping @Sendable (Date?) -> Void) {
        self.environment = environment
        self.report = report
    }

    /// Whether `environment` names a session bus (sd-bus's fallback would
    /// read the process's own variables, e.g. a test's host's, which the
    /// source was not given).
    static func namesBus(_ environment: [String: String]) -> Bool {
        environment["DBUS_SESSION_BUS_ADDRESS"].map { !$0.isEmpty } ?? false
            || environment["XDG_RUNTIME_DIR"].map { !$0.isEmpty } ?? false
    }

    /// Connects now, if a session bus is named and answers.
    func start() {
        guard Self.namesBus(environment) else { return }
        _ = connect()
    }

    /// Closes the connection and stops any retry. Not on the bus's thread.
    func close() {
        let (connection, retry) = state.withLock { state in
            defer { (state.connection, state.retry, state.ended) = (nil, nil, true) }
            return (state.connection, state.retry)
        }
        retry?.cancel()
        connection?.close()
    }

    /// Connects and follows the monitor; false when the bus cannot be
    /// reached. A bus without a monitor (not GNOME, or gnome-shell not
    /// started yet) is kept, to hear a monitor appear or the bus go away.
    private func connect() -> Bool {
        guard let connection = try? BusConnection(.session, environment: environment) else { return false }
        let kept = state.withLock { state -> Bool in
            guard !state.ended else { return false }
            state.connection = connection
            return true
        }
        guard kept else {
            connection.close()
            return false
        }
        let report = report
        connection.perform { connection in
            do throws(BusError) {
                try MutterIdleMonitor.follow(connection, report: report)
            } catch {
                // The bus refused the matches: logind's IdleHint alone.
            }
        }
        connection.onLost { [weak self] in self?.lost(connection) }
        return true
    }

    /// On the lost connection's thread: forgets the desktop's word, and
    /// tries again off that thread (closing it waits for its end).
    private func lost(_ connection: BusConnection) {
        report(nil)
        let ended = state.withLock { state -> Bool in
            if state.connection === connection { state.connection = nil }
            return state.ended
        }
        // Ended: `close` has taken the connection and closes it.
        guard !ended else { return }
        let retry = Task.detached { [weak self] in
            connection.close()
            var backoff = ReconnectBackoff()
            while let link = self, !Task.isCancelled {
                try? await Task.sleep(for: .seconds(backoff.next()))
                if Task.isCancelled || link.connect() { return }
            }
        }
        state.withLock { state in
            if state.ended { retry.cancel() } else { state.retry = retry }
        }
    }
}
#endif
