import Adapters
import Domain

/// `doctor`'s "time zone" finding: which zone local times are read in and
/// where it came from. When neither `TZ` nor /etc/localtime names a
/// readable zone, schedules and reports run in UTC: a warning, with the
/// reason, rather than intervals an hour off that nobody can explain.
struct TimeZoneHealth: HealthInspector {
    let environment: [String: String]

    func inspect(repairing: Bool) async -> [HealthCheck] {
        let found = SystemTimeZone.lookUp(environment: environment)
        guard let problem = found.problem else {
            return [HealthCheck(name: "time zone", status: .ok, detail: "\(found.rules.identifier) (from \(found.source))")]
        }
        return [HealthCheck(name: "time zone", status: .warning,
                            detail: "\(problem) (set TZ to a zone such as Europe/Berlin, or install the tzdata package)")]
    }
}
