import FoundationEssentials
#if canImport(Glibc)
import Glibc
#endif

/// What root does to the system service from the command line (`system
/// install`, `uninstall`): a notice in the system log under the service's
/// own identifier, so `journalctl -t retime-shield` shows it beside what
/// the service itself logged (its unit sets the same identifier).
public enum AdministrativeLog {
    public static let identifier = "retime-shield"

    public static func notice(_ message: String) {
        identifier.withCString { ident in
            openlog(ident, LOG_PID, LOG_DAEMON)
            message.withCString { text in withVaList([text]) { vsyslog(LOG_NOTICE, "%s", $0) } }
            closelog()
        }
    }
}
