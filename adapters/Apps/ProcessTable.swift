import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// Processes as `/proc` shows them: who runs them and under which name.
/// Each read may find the process gone; that is never an error.
enum ProcessTable {
    struct Entry: Equatable {
        var pid: Int32
        /// The real uid: the user who started it.
        var uid: UInt32
        /// The kernel's name for it (at most 15 bytes; a script's own name).
        var comm: String
        /// What `/proc/PID/exe` links to, when it could be read.
        var executable: String?
    }

    static func pids() -> [Int32] {
        guard let names = try? FileManager.default.contentsOfDirectory(atPath: "/proc") else { return [] }
        return names.compactMap { Int32($0) }
    }

    static func entry(_ pid: Int32) -> Entry? {
        guard let status = small("/proc/\(pid)/status"),
              let uidLine = status.split(separator: "\n").first(where: { $0.hasPrefix("Uid:") }),
              let uid = uidLine.split(whereSeparator: { $0 == "\t" || $0 == " " }).dropFirst().first.flatMap({ UInt32($0) }),
              let comm = small("/proc/\(pid)/comm") else { return nil }
        return Entry(pid: pid, uid: uid, comm: comm.trimmingCharacters(in: .newlines), executable: executable(pid))
    }

    static func executable(_ pid: Int32) -> String? {
        var buffer = [CChar](repeating: 0, count: 4_097)
        let count = readlink("/proc/\(pid)/exe", &buffer, 4_096)
        guard count > 0 else { return nil }
        let path = String(decoding: buffer[..<count].map { UInt8(bitPattern: $0) }, as: UTF8.self)
        return path.hasSuffix(" (deleted)") ? String(path.dropLast(10)) : path
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
