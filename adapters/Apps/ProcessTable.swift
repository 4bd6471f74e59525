import Domain
import FoundationEssentials
#if canImport(Glibc)
import Glibc
#endif

/// Processes as `/proc` shows them: who runs them, under which name, which
/// file, and whose child they are. Each read may find the process gone;
/// that is never an error.
enum ProcessTable {
    struct Entry: Equatable {
        var pid: Int32
        /// The real uid: the user who started it.
        var uid: UInt32
        /// The kernel's name for it (at most 15 bytes; a script's own name).
        var comm: String
        /// What `/proc/PID/exe` links to, when it could be read.
        var executable: String?
        /// The file it runs, when it could be read.
        var identity: ExecutableIdentity?
        /// Its parent's pid (0 when it has none, or it could not be read).
        var parent: Int32 = 0
    }

    static func pids() -> [Int32] {
        guard let names = try? FileManager.default.contentsOfDirectory(atPath: "/proc") else { return [] }
        return names.compactMap { Int32($0) }
    }

    static func entry(_ pid: Int32) -> Entry? {
        guard let status = small("/proc/\(pid)/status"), let uid = field("Uid:", in: status).flatMap({ UInt32($0) }),
              let comm = small("/proc/\(pid)/comm") else { return nil }
        return Entry(pid: pid, uid: uid, comm: comm.trimmedLineBreaks, executable: executable(pid),
                     identity: ExecutableIdentity.running(pid), parent: field("PPid:", in: status).flatMap { Int32($0) } ?? 0)
    }

    /// What a process runs and is called, without who runs it: the cheap
    /// first look at a process that might be an app (a fork's child).
    static func glance(_ pid: Int32) -> Entry? {
        guard let comm = small("/proc/\(pid)/comm") else { return nil }
        return Entry(pid: pid, uid: UInt32.max, comm: comm.hasSuffix("\n") ? String(comm.dropLast()) : comm, executable: executable(pid),
                     identity: ExecutableIdentity.running(pid))
    }

    /// The processes `pid` has forked that are still its children (each of
    /// its threads' `children`).
    static func children(_ pid: Int32) -> [Int32] {
        let threads = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/\(pid)/task")) ?? []
        return threads.flatMap { thread in
            (small("/proc/\(pid)/task/\(thread)/children") ?? "").split(separator: " ").compactMap { Int32($0.trimmed) }
        }
    }

    static func executable(_ pid: Int32) -> String? {
        var buffer = [CChar](repeating: 0, count: 4_097)
        let count = readlink("/proc/\(pid)/exe", &buffer, 4_096)
        guard count > 0 else { return nil }
        let path = String(decoding: buffer[..<count].map { UInt8(bitPattern: $0) }, as: UTF8.self)
        return path.hasSuffix(" (deleted)") ? String(path.dropLast(10)) : path
    }

    /// The first value of a `status` line (`Uid:` gives the real uid).
    private static func field(_ name: String, in status: String) -> Substring? {
        guard let line = status.split(separator: "\n").first(where: { $0.hasPrefix(name) }) else { return nil }
        return line.split(whereSeparator: { $0 == "\t" || $0 == " " }).dropFirst().first
    }

    /// A small /proc file's text (they report a size of 0: read, not stat).
    private static func small(_ path: String) -> String? {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { return nil }
        defer { close(fd) }
        var buffer = [UInt8](repeating: 0, count: 4_096)
        let count = read(fd, &buffer, buffer.count)
        return count > 0 ? String(decoding: buffer[..<count], as: UTF8.self) : nil
    }
}
