#if canImport(Glibc)
import Glibc
#endif

/// The pids the app layer knows run no blocked app, by what they run and
/// are called (`AppMatcher.mayMatch` said no), one bit each: a fork's child
/// runs what its parent ran and goes by its name, so a fork of a known
/// process is judged with no reading of `/proc`. Sound while every event is
/// read in order: a pid is marked or cleared at each exec, rename and fork
/// that gives it a process (a reused pid first appears as a fork's child),
/// so `forget()` must follow dropped events and each change of the blocks.
struct CleanProcesses: Sendable {
    private var bits: [UInt64]

    /// Room for every pid the kernel may give (`kernel.pid_max`).
    init(capacity: Int = CleanProcesses.pidMax()) {
        bits = [UInt64](repeating: 0, count: (max(capacity, 64) + 63) / 64)
    }

    func contains(_ pid: Int32) -> Bool {
        let index = Int(pid)
        guard index >= 0, index / 64 < bits.count else { return false }
        return bits[index / 64] & (1 << UInt64(index % 64)) != 0
    }

    mutating func set(_ pid: Int32, clean: Bool) {
        let index = Int(pid)
        guard index >= 0, index / 64 < bits.count else { return }
        if clean { bits[index / 64] |= 1 << UInt64(index % 64) } else { bits[index / 64] &= ~(1 << UInt64(index % 64)) }
    }

    mutating func forget() {
        for index in bits.indices { bits[index] = 0 }
    }

    /// `kernel.pid_max` (4,194,304, 512 KiB of bits, where it cannot be read).
    static func pidMax() -> Int {
        let fd = open("/proc/sys/kernel/pid_max", O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { return 4_194_304 }
        defer { close(fd) }
        var buffer = [UInt8](repeating: 0, count: 32)
        let count = read(fd, &buffer, buffer.count)
        guard count > 0 else { return 4_194_304 }
        return Int(String(decoding: buffer[..<count], as: UTF8.self).filter(\.isNumber)) ?? 4_194_304
    }
}
