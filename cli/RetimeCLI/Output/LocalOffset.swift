import FoundationEssentials
#if canImport(Glibc)
import Glibc
#endif

/// The local UTC offset at an instant, from the C library's time-zone code
/// (`localtime_r`, honouring `TZ`), for printing local times. Foundation's
/// The calendar maths (schedules, reports) reads the same files through
/// `TimeZoneRules`; the C library's answer is the fallback-free one here.
enum LocalOffset {
    static func seconds(at date: Date) -> Int {
        var time = time_t(date.timeIntervalSince1970.rounded(.down))
        var parts = tm()
        guard localtime_r(&time, &parts) != nil else { return 0 }
        return Int(parts.tm_gmtoff)
    }
}
