#if canImport(Glibc)
import Domain
import FoundationEssentials
import Glibc

/// How a device adds lines to its own change log (`ReplicatedLogStore`):
/// whole lines only, a new log linked into place whole, and a torn last
/// line of a crashed write cut off before the next append.
enum ChangeLogAppender {
    /// Appends whole lines. A torn last line (a write of this device that a
    /// crash cut short, never acknowledged: only this device writes here)
    /// is cut off first, so it never becomes a damaged line.
    static func append(_ bytes: [UInt8], path: String, folder: String, durability: WriteDurability) throws {
        // A new log appears whole (written aside, then linked into place),
        // so no log is ever empty or torn before its first line.
        if try POSIXFiles.linkStatus(path) == nil, try Self.create(path, with: bytes, folder: folder) { return }
        let fd = open(path, O_RDWR | O_CREAT | O_APPEND | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK, 0o600)
        guard fd >= 0 else {
            if errno == ELOOP { throw StoreError.symlinkRefused(path: path) }
            throw StoreError.notWritable(path: path, reason: POSIXFiles.reason())
        }
        defer { close(fd) }
        var info = stat()
        guard fstat(fd, &info) == 0 else { throw StoreError.unreadable(path: path, reason: POSIXFiles.reason()) }
        try POSIXFiles.requireRegular(info, path: path)
        let whole = try Self.wholeLinesLength(fd, size: Int(info.st_size), path: path)
        if whole < Int(info.st_size), ftruncate(fd, off_t(whole)) != 0 {
            throw StoreError.notWritable(path: path, reason: "ftruncate: \(POSIXFiles.reason())")
        }
        try POSIXFiles.writeAll(fd, bytes, path: path)
        guard durability == .durable else { return }
        guard fsync(fd) == 0 else { throw StoreError.notWritable(path: path, reason: "fsync: \(POSIXFiles.reason())") }
        if info.st_size == 0 { POSIXFiles.syncDirectory(folder) }
    }

    /// Writes a new log aside and links it into place; false if a log
    /// appeared there meanwhile (then the lines are appended to it).
    private static func create(_ path: String, with bytes: [UInt8], folder: String) throws -> Bool {
        let temp = "\(path).tmp-\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
        let fd = open(temp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0o600)
        guard fd >= 0 else { throw StoreError.notWritable(path: path, reason: POSIXFiles.reason()) }
        defer { unlink(temp) }
        do {
            try POSIXFiles.writeAll(fd, bytes, path: path)
            guard fsync(fd) == 0 else { throw StoreError.notWritable(path: path, reason: "fsync: \(POSIXFiles.reason())") }
            close(fd)
        } catch {
            close(fd)
            throw error
        }
        try SimulatedCrash.check(path)
        guard link(temp, path) == 0 else {
            if errno == EEXIST { return false }
            throw StoreError.notWritable(path: path, reason: POSIXFiles.reason())
        }
        POSIXFiles.syncDirectory(folder)
        return true
    }

    /// How many bytes of the file end with its last newline.
    private static func wholeLinesLength(_ fd: Int32, size: Int, path: String) throws -> Int {
        var end = size
        var chunk = [UInt8](repeating: 0, count: 4_096)
        while end > 0 {
            let start = max(0, end - chunk.count)
            let count = chunk.withUnsafeMutableBytes { pread(fd, $0.baseAddress!, end - start, off_t(start)) }
            guard count == end - start else { throw StoreError.unreadable(path: path, reason: POSIXFiles.reason()) }
            if let newline = chunk[0..<count].lastIndex(of: 0x0A) { return start + newline + 1 }
            end = start
        }
        return 0
    }
}
#endif
