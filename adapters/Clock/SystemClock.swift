import Domain
import FoundationEssentials
#if canImport(Glibc)
import Glibc
#endif

/// The real clock: the system's wall clock, and on Linux the boot-time clock
/// with the boot id and the awake clock (which stops during suspend).
public struct SystemClock: RetimeShared.Clock {
    public init() {}

    public func now() -> Date { Date() }

    /// Sleeps in steps of at most a minute, re-reading the wall clock after
    /// each, so a wall-clock jump delays a deadline by at most that step.
    /// (The daemon's timerfd-based clock wakes on the jump itself.)
    public func sleep(until deadline: Date) async throws {
        while true {
            let left = deadline.timeIntervalSinceNow
            guard left > 0 else { return try Task.checkCancellation() }
            try await Task.sleep(nanoseconds: UInt64(min(left, 60) * 1_000_000_000))
        }
    }

    public func bootTime() -> BootTimeReading? {
        #if os(Linux)
        // The awake clock is read first: a suspend between the two readings
        // then shows as (a little) suspended time, never as negative.
        var awake = timespec(), spec = timespec()
        let hasAwake = clock_gettime(CLOCK_MONOTONIC, &awake) == 0
        guard clock_gettime(CLOCK_BOOTTIME, &spec) == 0, let bootID = Self.bootID() else { return nil }
        return BootTimeReading(bootID: bootID, seconds: Double(spec.tv_sec) + Double(spec.tv_nsec) / 1e9,
                               awakeSeconds: hasAwake ? Double(awake.tv_sec) + Double(awake.tv_nsec) / 1e9 : nil)
        #else
        return nil
        #endif
    }

    #if os(Linux)
    /// The kernel's id of this boot (a UUID and a newline), read with one
    /// read(2): every command asks, and Foundation's file and trimming
    /// machinery cost a quarter of a millisecond of start-up.
    private static func bootID() -> String? {
        let fd = open("/proc/sys/kernel/random/boot_id", O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { return nil }
        defer { close(fd) }
        var buffer = [UInt8](repeating: 0, count: 64)
        let count = buffer.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
        guard count > 0 else { return nil }
        let text = buffer[..<count].prefix { $0 > 0x20 && $0 < 0x7F }
        return text.isEmpty ? nil : String(decoding: text, as: UTF8.self)
    }
    #endif
}
