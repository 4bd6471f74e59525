import Adapters
import Domain

/// `doctor`'s "shield" finding: whether the configured shield can enforce a
/// block for this user now, before a `start` finds out. The hosts shield
/// must be able to write its hosts file (only root may write /etc/hosts);
/// the system shield needs its service to answer; `none`, and `auto`
/// without a service, record blocks and enforce none, as configured. And
/// whether the running session blocks nothing although the service is
/// installed (started before it was, or with the `none` shield): of the
/// session `doctor` read once for all its checks.
struct ShieldAccessHealth: SessionHealthInspector {
    let shields: ConfiguredShields

    func inspect(repairing: Bool, running: Session?) async -> [HealthCheck] {
        await access() + unenforcedSession(running)
    }

    /// A running session recorded with the `none` shield while the service
    /// is installed: nothing of it is blocked, which the user may not know.
    private func unenforcedSession(_ running: Session?) -> [HealthCheck] {
        guard shields.serviceInstalled, let session = running, session.isActive,
              session.shield == RecordingShield.identity else { return [] }
        let chosen = (try? shields.configuredName()) == "none"
        let what = "the running \(session.strict ? "strict " : "")session blocks nothing (it started with the 'none' shield)"
            + " although the system service is installed"
        let next = session.strict ? "; it stays unblocked until its planned end" : "; 'retime stop', then start it again, blocks it"
        return [HealthCheck(name: "session shield", status: chosen ? .warning : .error,
                            detail: what + (chosen ? ", as 'retime config set shield none' chose" : "") + next)]
    }

    private func access() async -> [HealthCheck] {
        func found(_ status: HealthCheck.Status, _ detail: String) -> [HealthCheck] { [HealthCheck(name: "shield", status: status, detail: detail)] }
        let configured: String, shield: any Shield & ShieldAuthorizationProbe
        do { (configured, shield) = (try shields.configuredName(), try shields.configuredProbe()) } catch {
            return found(.warning, "the configured shield cannot be built: \(error)")
        }
        let install = "'sudo retime system install'"
        switch shield {
        case let hosts as HostsFileShield:
            if let problem = hosts.permissionProblem() {
                return found(.error, "the hosts shield cannot write its hosts file \(hosts.path): \(problem), so every start fails;"
                                 + " it is only for users who may write that file: install the system service (\(install)),"
                                 + " then 'retime config set shield auto'")
            }
            guard await hosts.authorization() == .approved else {
                return found(.error, "the hosts shield cannot replace \(hosts.path) (a mount point of its own), so every start fails")
            }
            return found(.ok, "the hosts shield can write \(hosts.path)")
        case let system as SystemShield:
            guard system.client.isReachable() else {
                guard shields.serviceInstalled else {
                    return found(.warning, "the system service does not answer at \(system.client.socketPath), so a start fails; install it with \(install)")
                }
                return found(.error, "the system service is installed but does not answer at \(system.client.socketPath), so every start fails"
                                 + " rather than block nothing; as root: 'systemctl status retime-shield' and 'journalctl -u retime-shield'")
            }
            return found(.ok, "the system service answers at \(system.client.socketPath)")
        default:
            let why = configured == "auto" ? "'auto' finds no system service at \(shields.socketPath)" : "'\(configured)'"
            return found(.ok, "\(why): blocks are recorded, not enforced; \(install) enforces them")
        }
    }
}
