import Foundation

/// A zone where it is about noon now (a whole-hour `Etc/GMT` zone), for
/// tests of what happens "today": a local day does not turn while such a
/// test runs, at whatever hour of the day it runs.
enum LocalNoon {
    static func zone(at now: Date = Date()) -> String {
        let offset = 12 - Int(now.timeIntervalSince1970.truncatingRemainder(dividingBy: 86_400) / 3_600)
        // Etc/GMT-5 is UTC+5 (POSIX signs).
        return offset == 0 ? "Etc/GMT" : offset > 0 ? "Etc/GMT-\(offset)" : "Etc/GMT+\(-offset)"
    }
}

extension RetimeProcess {
    /// The same process with its local day's noon now (`LocalNoon`).
    func atLocalNoon() -> RetimeProcess {
        var retime = self
        retime.environment["TZ"] = LocalNoon.zone()
        return retime
    }
}
