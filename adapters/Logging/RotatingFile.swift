import Domain
import FoundationEssentials
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// An append-only file that rotates by size: when it passes `maxBytes`,
/// `name` becomes `name.1`, `name.1` becomes `name.2`, ... up to `keep`.
/// Shared by every copy of the handler or tracker that writes through it.
/// Writing never throws: logging must not break what it records.
public final class RotatingFile: Sendable {
    public let path: String
    public let maxBytes: Int
    public let keep: Int
    private let state = Mutex<(fd: Int32, size: Int)?>(nil)

    public init(path: String, maxBytes: Int = 1_048_576, keep: Int = 3) {
        self.path = path
        self.maxBytes = maxBytes
        self.keep = keep
    }

    deinit {
        state.withLock { if let open = $0 { Glibc.close(open.fd) } }
    }

    /// Closes the file now (at shutdown); a later `append` opens it again.
    /// Appends are not buffered, so nothing written is lost by closing.
    public func close() {
        state.withLock { state in
            if let open = state { Glibc.close(open.fd) }
            state = nil
        }
    }

    public func append(_ text: String) {
        let bytes = Array(text.utf8)
        state.withLock { state in
            if state == nil { state = open() }
            guard var current = state else { return }
            if current.size > 0, current.size + bytes.count > maxBytes {
                Glibc.close(current.fd)
                rotate()
                guard let fresh = open() else { state = nil; return }
                current = fresh
            }
            if (try? POSIXFiles.writeAll(current.fd, bytes, path: path)) != nil { current.size += bytes.count }
            state = current
        }
    }

    /// Rotates the file if it has reached `maxBytes`: for files that other
    /// writers (a hook's output) append to without going through `append`.
    public func rotateIfFull() {
        state.withLock { state in
            guard let size = (try? POSIXFiles.linkStatus(path))??.size, size >= maxBytes else { return }
            if let open = state { Glibc.close(open.fd) }
            state = nil
            rotate()
        }
    }

    /// The rotated files that exist, newest first (`name.1`, `name.2`, ...).
    public var rotatedPaths: [String] {
        (1...max(1, keep)).map { "\(path).\($0)" }.filter { FileManager.default.fileExists(atPath: $0) }
    }

    private func open() -> (fd: Int32, size: Int)? {
        try? POSIXFiles.ensureDirectory(POSIXFiles.parentDirectory(of: path))
        // O_NONBLOCK: a FIFO in the log's place never holds the writer up;
        // anything but a regular file is not written to.
        let fd = Glibc.open(path, O_WRONLY | O_CREAT | O_APPEND | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK, 0o600)
        guard fd >= 0 else { return nil }
        var info = stat()
        guard fstat(fd, &info) == 0, info.st_mode & S_IFMT == S_IFREG else {
            Glibc.close(fd)
            return nil
        }
        return (fd, Int(info.st_size))
    }

    private func rotate() {
        for generation in stride(from: keep - 1, through: 1, by: -1) {
            rename("\(path).\(generation)", "\(path).\(generation + 1)")
        }
        if keep > 0 { rename(path, "\(path).1") } else { unlink(path) }
    }
}
