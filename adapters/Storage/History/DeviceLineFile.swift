import Domain
import FoundationEssentials
#if canImport(Glibc)
import Glibc
#endif

/// Appends whole lines to one of a device's append-only files in history
/// (its amendments, its undo journal): under the file's lock, after a
/// newline if a crash left the last line torn (so it never swallows this
/// one), `fsync`ed, and the folder too when the file is new. A line is
/// either all there or, torn, skipped by every reader.
enum DeviceLineFile {
    /// `folder`: the device's own folder in history, made if missing.
    static func append(_ bytes: [UInt8], to name: String, in folder: String, lockTimeout: Double) throws {
        var line = bytes
        try POSIXFiles.ensureDirectory(folder)
        let path = folder + "/" + name
        let lock = try FileLock(path: path, timeout: lockTimeout, flags: O_RDWR | O_CREAT | O_APPEND)
        let fd = lock.descriptor
        var info = stat()
        guard fstat(fd, &info) == 0 else { throw StoreError.unreadable(path: path, reason: POSIXFiles.reason()) }
        if info.st_size > 0 {
            var last: UInt8 = 0
            if pread(fd, &last, 1, off_t(info.st_size - 1)) == 1, last != 0x0A { line.insert(0x0A, at: 0) }
        }
        try POSIXFiles.writeAll(fd, line, path: path)
        guard fsync(fd) == 0 else { throw StoreError.notWritable(path: path, reason: "fsync: \(POSIXFiles.reason())") }
        if info.st_size == 0 { POSIXFiles.syncDirectory(folder) }
        _ = consume lock
    }
}
