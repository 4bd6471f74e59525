import Domain
import FoundationEssentials
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The few file-system operations the store is built on, with the durability
/// rules of docs/storage.md: data files 0600, directories 0700, no symlinks
/// followed where a data file should be, writes made durable with fsync.
public enum POSIXFiles {
    /// Why a system call failed, for messages.
    static func reason(_ code: Int32 = errno) -> String { String(cString: strerror(code)) }

    /// Creates `path` and its missing parents with mode 0700.
    static func ensureDirectory(_ path: String, mode: mode_t = 0o700) throws {
        var info = stat()
        if stat(path, &info) == 0 {
            guard info.st_mode & S_IFMT == S_IFDIR else { throw StoreError.notWritable(path: path, reason: "it is not a directory") }
            return
        }
        let parent = parentDirectory(of: path)
        if !parent.isEmpty, parent != path { try ensureDirectory(parent, mode: mode) }
        guard mkdir(path, mode) == 0 || errno == EEXIST else {
            throw StoreError.notWritable(path: path, reason: reason())
        }
    }

    /// `path` as a directory only its owner may enter (0700), made if
    /// missing; an existing one is brought to 0700. For the system
    /// service's root-owned state.
    public static func ensurePrivateDirectory(_ path: String) throws {
        try ensureDirectory(path)
        guard chmod(path, 0o700) == 0 else { throw StoreError.notWritable(path: path, reason: reason()) }
    }

    /// The directory that holds `path`, as NSString's
    /// `deletingLastPathComponent` gives it (`/a/b` for `/a/b/c` and
    /// `/a/b/c/`, `/` for `/a`), without bridging to NSString, which cost a
    /// durable write a tenth of its instructions. A bare name has none
    /// (empty; Foundation traps on it) and `//` is in `/` (Foundation: empty).
    static func parentDirectory(of path: String) -> String {
        let slash = UInt8(ascii: "/")
        let bytes = Array(path.utf8)
        var end = bytes.count
        while end > 1, bytes[end - 1] == slash { end -= 1 }
        guard let last = bytes[..<end].lastIndex(of: slash) else { return "" }
        var cut = last
        while cut > 0, bytes[cut - 1] == slash { cut -= 1 }
        return cut == 0 ? "/" : String(decoding: bytes[..<cut], as: UTF8.self)
    }

    /// The most a data file read may hold unless its reader says otherwise:
    /// far above any real suite file (1,000 groups of 10,000 targets are a
    /// few MB), far below what would exhaust memory.
    static let defaultReadLimit = 64 << 20

    /// The whole content of a data file, or nil if there is none. A symlink
    /// is refused, and so is anything but a regular file (`/dev/zero`, a
    /// FIFO) or a file over `limit` bytes: a clear error, never gigabytes.
    static func read(_ path: String, limit: Int = defaultReadLimit) throws -> [UInt8]? {
        try readStamped(path, limit: limit)?.bytes
    }

    /// `read`, with the stamp of the file as it was opened: a later `lstat`
    /// showing the same stamp means the same content (files are replaced by
    /// rename, and an edit in place moves the modification time).
    static func readStamped(_ path: String, limit: Int = defaultReadLimit) throws -> (bytes: [UInt8], stamp: FileStamp)? {
        // O_NONBLOCK: opening a FIFO for reading would wait for a writer;
        // what is opened is looked at (fstat) before anything is read.
        let fd = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK)
        guard fd >= 0 else {
            let code = errno
            if code == ENOENT { return nil }
            if code == ELOOP { throw StoreError.symlinkRefused(path: path) }
            if code == ENXIO { throw StoreError.notRegularFile(path: path, kind: "socket") }
            throw StoreError.unreadable(path: path, reason: reason(code))
        }
        defer { close(fd) }
        var stamp = FileStamp()
        let bytes = try readAll(fd, path: path, limit: limit, stamp: &stamp)
        return (bytes, stamp)
    }

    /// The names in a directory (not `.` and `..`); empty if it cannot be read.
    /// `readdir` directly: FileManager's first use costs a one-shot command
    /// about a millisecond.
    static func names(in directory: String) -> [String] {
        guard let stream = opendir(directory) else { return [] }
        defer { closedir(stream) }
        var names: [String] = []
        while let entry = readdir(stream) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { raw in
                String(cString: raw.baseAddress!.assumingMemoryBound(to: CChar.self))
            }
            if name != ".", name != ".." { names.append(name) }
        }
        return names
    }

    static func readAll(_ fd: Int32, path: String, limit: Int = defaultReadLimit) throws -> [UInt8] {
        var stamp = FileStamp()
        return try readAll(fd, path: path, limit: limit, stamp: &stamp)
    }

    private static func readAll(_ fd: Int32, path: String, limit: Int, stamp: inout FileStamp) throws -> [UInt8] {
        var info = stat()
        guard fstat(fd, &info) == 0 else { throw StoreError.unreadable(path: path, reason: reason()) }
        stamp = FileStamp(info)
        try requireRegular(info, path: path)
        guard Int(info.st_size) <= limit else { throw tooLarge(path, limit: limit) }
        // One byte more than the file holds, so the read that finds the end
        // needs no growth (growing copies the whole buffer).
        var bytes = [UInt8](repeating: 0, count: max(Int(info.st_size), 0) + 1)
        var filled = 0
        while true {
            if filled == bytes.count { bytes.append(contentsOf: repeatElement(0, count: max(4_096, bytes.count))) }
            let count = bytes.withUnsafeMutableBytes { pread(fd, $0.baseAddress! + filled, $0.count - filled, off_t(filled)) }
            if count < 0 {
                if errno == EINTR { continue }
                throw StoreError.unreadable(path: path, reason: reason())
            }
            if count == 0 { break }
            filled += count
            // A file still growing as it is read.
            if filled > limit { throw tooLarge(path, limit: limit) }
        }
        bytes.removeLast(bytes.count - filled)
        return bytes
    }

    /// Refuses anything but a regular file, naming what it is.
    static func requireRegular(_ info: stat, path: String) throws(StoreError) {
        let type = info.st_mode & S_IFMT
        guard type != S_IFREG else { return }
        throw .notRegularFile(path: path, kind: kind(of: type))
    }

    /// Refuses an open descriptor that is not a regular file.
    static func requireRegular(_ fd: Int32, path: String) throws(StoreError) {
        var info = stat()
        guard fstat(fd, &info) == 0 else { throw .unreadable(path: path, reason: reason()) }
        try requireRegular(info, path: path)
    }

    /// What a file type is called in messages.
    static func kind(of type: mode_t) -> String {
        switch type {
        case S_IFDIR: "directory"
        case S_IFIFO: "FIFO (named pipe)"
        case S_IFSOCK: "socket"
        case S_IFCHR: "character device"
        case S_IFBLK: "block device"
        case S_IFLNK: "symbolic link"
        default: "special file"
        }
    }

    /// The kind of what `path` names if it is there and not a regular file
    /// (a symlink is not followed); nil for a regular file or nothing.
    public static func irregularKind(_ path: String) -> String? {
        var info = stat()
        guard lstat(path, &info) == 0, info.st_mode & S_IFMT != S_IFREG else { return nil }
        return kind(of: info.st_mode & S_IFMT)
    }

    static func tooLarge(_ path: String, limit: Int) -> StoreError {
        .unreadable(path: path, reason: "it is larger than the \(limit >> 20) MiB retime reads of such a file")
    }

    struct LinkStatus {
        var isSymlink: Bool
        var inode: UInt64
        var size: Int64
        var modifiedNanoseconds: Int64
        var mode: UInt32
    }

    /// Whether `path` is a symbolic link (dangling or not).
    static func isSymlink(_ path: String) -> Bool {
        (try? linkStatus(path))??.isSymlink ?? false
    }

    /// `lstat` of `path`, nil if it does not exist.
    static func linkStatus(_ path: String) throws -> LinkStatus? {
        var info = stat()
        guard lstat(path, &info) == 0 else {
            if errno == ENOENT { return nil }
            throw StoreError.unreadable(path: path, reason: reason())
        }
        return LinkStatus(isSymlink: (info.st_mode & S_IFMT) == S_IFLNK, inode: UInt64(info.st_ino), size: Int64(info.st_size),
                          modifiedNanoseconds: FileStamp(info).modifiedNanoseconds, mode: UInt32(info.st_mode))
    }

    /// One version of a file on disk: device, inode, size, modification and
    /// change times. Every write of a data file replaces it by rename, and
    /// an edit in place moves the times, so two versions share a stamp only
    /// when both were written within one tick of the file system's clock
    /// (a few ms) into a reused inode with the same size: content cached by
    /// stamp is never older than that tick.
    struct FileStamp: Hashable {
        var device: UInt64 = 0
        var inode: UInt64 = 0
        var size: Int64 = -1
        var modifiedNanoseconds: Int64 = 0
        var changedNanoseconds: Int64 = 0

        init() {}

        init(_ info: stat) {
            device = UInt64(info.st_dev)
            inode = UInt64(info.st_ino)
            size = Int64(info.st_size)
            modifiedNanoseconds = Int64(info.st_mtim.tv_sec) * 1_000_000_000 + Int64(info.st_mtim.tv_nsec)
            changedNanoseconds = Int64(info.st_ctim.tv_sec) * 1_000_000_000 + Int64(info.st_ctim.tv_nsec)
        }

        /// The stamp of what `path` names now (not following a symlink);
        /// nil if nothing is there.
        static func current(_ path: String) throws -> FileStamp? {
            var info = stat()
            guard lstat(path, &info) == 0 else {
                if errno == ENOENT { return nil }
                throw StoreError.unreadable(path: path, reason: reason())
            }
            return FileStamp(info)
        }
    }
}
