import Domain
import FoundationEssentials
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Writing: durably, by rename, and finding what interrupted writes left.
extension POSIXFiles {
    /// How a system file (the hosts file) is replaced, unlike a data file.
    struct SystemFileWrite {
        /// The mode of a file that did not exist yet.
        var mode: mode_t = 0o644
        /// Keep the replaced file's owner, group and mode.
        var keepsOwnerAndMode = true
        /// Where the file cannot be replaced by a rename (a bind mount
        /// answers EBUSY; a directory we may not create in), write in place.
        var inPlaceWhenFixed = true
    }

    /// Replaces `path` with `bytes` so that a crash at any instant leaves the
    /// old or the new content: temp file beside it, fsync, rename, fsync dir.
    /// A data file is created 0600; `system` says how a system file is kept.
    /// Without `syncingDirectory`, the rename itself may be lost to a crash
    /// (the old content stays): for state that is repaired when it is lost.
    /// Returns the stamp of the new file (nil when written in place).
    @discardableResult
    static func writeAtomically(_ bytes: [UInt8], to path: String, system: SystemFileWrite? = nil,
                                syncingDirectory: Bool = true) throws -> FileStamp? {
        let directory = parentDirectory(of: path)
        var existing = stat()
        let exists = system?.keepsOwnerAndMode == true && stat(path, &existing) == 0
        let temp = "\(path).tmp-\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
        let fd = open(temp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, system?.mode ?? 0o600)
        var stamp: FileStamp?   // rename keeps the inode and the modification time
        guard fd >= 0 else {
            if system?.inPlaceWhenFixed == true { try writeInPlace(bytes, to: path); return nil }
            throw StoreError.notWritable(path: path, reason: reason())
        }
        do {
            try writeAll(fd, bytes, path: path)
            if exists {
                _ = fchown(fd, existing.st_uid, existing.st_gid)
                _ = fchmod(fd, existing.st_mode & 0o7777)
            } else if let system {
                _ = fchmod(fd, system.mode)   // not the umask's
            }
            guard fsync(fd) == 0 else { throw StoreError.notWritable(path: path, reason: "fsync: \(reason())") }
            var info = stat()
            if fstat(fd, &info) == 0 { stamp = FileStamp(info) }
            close(fd)
        } catch {
            close(fd)
            unlink(temp)
            throw error
        }
        if let existing = try? linkStatus(path), existing.isSymlink {
            unlink(temp)
            throw StoreError.symlinkRefused(path: path)
        }
        try SimulatedCrash.check(path)
        guard rename(temp, path) == 0 else {
            let code = errno
            unlink(temp)
            if system?.inPlaceWhenFixed == true, code == EBUSY || code == EXDEV || code == EPERM {
                try writeInPlace(bytes, to: path)
                return nil
            }
            throw StoreError.notWritable(path: path, reason: reason(code))
        }
        if syncingDirectory { syncDirectory(directory) }
        return stamp
    }

    /// Replaces a cache file (temp file, rename; no `fsync`): a cache lost
    /// to a crash is made again, and a torn one is never read (the rename
    /// puts the whole file in place or nothing). Failing is harmless.
    static func writeCache(_ bytes: [UInt8], to path: String) {
        let temp = "\(path).tmp-\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
        let fd = open(temp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0o600)
        guard fd >= 0 else { return }
        let written = (try? writeAll(fd, bytes, path: temp, cache: true)) != nil
        close(fd)
        if !written || rename(temp, path) != 0 { unlink(temp) }
    }

    /// Rewrites `path` in place (truncate, write, fsync): for a file that
    /// cannot be replaced. Not atomic: only where a rename cannot be had.
    private static func writeInPlace(_ bytes: [UInt8], to path: String) throws {
        let fd = open(path, O_WRONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK)
        guard fd >= 0 else { throw StoreError.notWritable(path: path, reason: reason()) }
        defer { close(fd) }
        try requireRegular(fd, path: path)
        guard ftruncate(fd, 0) == 0 else { throw StoreError.notWritable(path: path, reason: reason()) }
        try writeAll(fd, bytes, path: path)
        guard fsync(fd) == 0 else { throw StoreError.notWritable(path: path, reason: "fsync: \(reason())") }
    }

    /// How old a temp file of `writeAtomically` must be to count as left by
    /// a writer that died: a live write holds one for milliseconds, so
    /// nothing younger is ever another process's write in progress.
    static let abandonedAfter: Double = 60

    /// The temp files `writeAtomically` left in `directory` for files whose
    /// name `isTarget` accepts, older than `abandonedAfter`.
    static func abandonedTempFiles(in directory: String, now: Date, isTarget: (String) -> Bool) -> [String] {
        ((try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? []).filter { name in
            guard let marker = name.firstRange(of: ".tmp-"), isTarget(String(name[..<marker.lowerBound])),
                  let status = try? linkStatus(directory + "/" + name) else { return false }
            return now.timeIntervalSince1970 - Double(status.modifiedNanoseconds) / 1e9 > abandonedAfter
        }.sorted().map { directory + "/" + $0 }
    }

    /// Removes the temp files of `writeAtomically` in `directory`, for files
    /// `isTarget` accepts, whose writer (the PID in the name) is gone: what a
    /// process killed mid-write left. Returns how many it removed.
    @discardableResult
    static func removeTempFilesOfDeadWriters(in directory: String, isTarget: (String) -> Bool) -> Int {
        names(in: directory).filter { name in
            guard let marker = name.firstRange(of: ".tmp-"), isTarget(String(name[..<marker.lowerBound])),
                  let pid = Int32(name[marker.upperBound...].prefix { $0 != "-" }) else { return false }
            return kill(pid, 0) != 0 && errno == ESRCH && unlink(directory + "/" + name) == 0
        }.count
    }

    /// Writes every byte. `cache`: a cache's write, which a simulated
    /// crash does not count (whether one is written hangs on timing, and a
    /// simulation's crash must fall on the same write at each replay).
    static func writeAll(_ fd: Int32, _ bytes: [UInt8], path: String, cache: Bool = false) throws {
        var written = 0
        // A simulated crash (tests only) writes a part and dies.
        if let plan = SimulatedCrash.plan, cache ? plan.crashed : true, let cut = plan.cut(bytes.count) {
            if cut > 0 { _ = bytes.withUnsafeBytes { write(fd, $0.baseAddress!, cut) } }
            throw SimulatedCrash.death(path)
        }
        while written < bytes.count {
            let count = bytes.withUnsafeBytes { write(fd, $0.baseAddress! + written, $0.count - written) }
            if count < 0 {
                if errno == EINTR { continue }
                throw StoreError.notWritable(path: path, reason: reason())
            }
            written += count
        }
    }

    /// Makes a rename or a new file in `directory` durable.
    static func syncDirectory(_ directory: String) {
        let fd = open(directory, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard fd >= 0 else { return }
        fsync(fd)
        close(fd)
    }
}
