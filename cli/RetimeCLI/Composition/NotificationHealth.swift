import Adapters
import Domain

/// `doctor`'s "notifications" finding: with `notify on` (the default),
/// whether a notification can be shown here. Without notify-send or a
/// desktop bus, schedule warnings reach only the log; a user who counts on
/// them must hear that from doctor, not find out at 08:55.
struct NotificationHealth: HealthInspector {
    /// The settings in force; nil when they cannot be read (the "settings"
    /// finding says why, and whether notify is on is then unknown).
    let settings: Settings?
    let environment: [String: String]

    func inspect(repairing: Bool) async -> [HealthCheck] {
        guard let settings else {
            return [HealthCheck(name: "notifications", status: .warning, detail: "unknown while the settings cannot be read (see 'settings')")]
        }
        guard settings.notifies else { return [HealthCheck(name: "notifications", status: .ok, detail: "off ('notify off')")] }
        guard let why = NotifySendNotifier.unavailability(environment) else {
            return [HealthCheck(name: "notifications", status: .ok, detail: "shown through notify-send")]
        }
        return [HealthCheck(name: "notifications", status: .warning,
                            detail: "on, but none can be shown: \(why); schedule warnings and session ends reach only the log"
                                + " ('retime config set notify off' says you know)")]
    }
}
