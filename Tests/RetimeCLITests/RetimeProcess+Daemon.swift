import Foundation
import Testing

extension RetimeProcess {
    /// Starts `retime daemon run` and waits until `daemon status` says it
    /// runs (generous: the whole suite runs in parallel on two cores). A
    /// daemon that exits as it starts is recorded, with what it said.
    func startDaemon() throws -> Running {
        let daemon = try start(["daemon", "run"])
        let up = try eventually(within: 15) { try run("daemon", "status").status == 0 || !daemon.process.isRunning }
        if up && !daemon.process.isRunning {
            let outcome = try finish(daemon)
            Issue.record("the daemon exited \(outcome.status) as it started: \(outcome.err)")
        }
        #expect(up, "the daemon came up")
        return daemon
    }

    /// The same process on the session bus at `address` (a test's own
    /// `dbus-daemon`, never the machine's).
    func onSessionBus(_ address: String) -> RetimeProcess {
        var retime = self
        retime.environment["DBUS_SESSION_BUS_ADDRESS"] = address
        return retime
    }

    /// `doctor --json`'s finding `name`, or nil when it has none.
    func doctorFinding(_ name: String) throws -> [String: Any]? {
        let checks = try run("doctor", "--json").json["checks"] as? [[String: Any]]
        return checks?.first { $0["name"] as? String == name }
    }
}
