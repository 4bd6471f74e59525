import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// The local UTC offset at an instant, from the C library's time-zone code
/// (`localtime_r`, honouring `TZ`), for printing local times. Foundation's
/// `TimeZone` answers the same but loads ICU's data on first use, which
/// costs a one-shot command like `log` a few milliseconds; the domain's
/// calendar maths (schedules, reports) still uses `TimeZone`.
enum LocalOffset {
    static func seconds(at date: Date) -> Int {
        var time = time_t(date.timeIntervalSince1970.rounded(.down))
        var parts = tm()
        guard localtime_r(&time, &parts) != nil else { return TimeZone.current.secondsFromGMT(for: date) }
        return Int(parts.tm_gmtoff)
    }
}
