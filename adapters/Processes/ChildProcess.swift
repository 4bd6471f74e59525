import CRetimeLinux
import FoundationEssentials
#if canImport(Glibc)
import Glibc
#endif

/// A program started as a child of this process (posix_spawn), which the
/// caller waits for: what Foundation's `Process` did for the tools, the
/// pager and the probes, without linking Foundation's ICU. Waiting blocks
/// in `waitpid`, so it costs no polling (`Process.waitUntilExit` polled its
/// run loop every 50 ms).
public struct ChildProcess: Sendable {
    /// The child's process id.
    public let pid: pid_t

    /// Starts `command` (`command[0]` an absolute path) with `environment`
    /// (nil: this process's); its standard streams are the given
    /// descriptors, or this process's own where nil. No other descriptor
    /// is inherited.
    public static func start(_ command: [String], environment: [String: String]? = nil,
                             stdin: Int32? = nil, stdout: Int32? = nil, stderr: Int32? = nil) throws(ChildProcessError) -> ChildProcess {
        guard let path = command.first else { throw ChildProcessError(program: "", code: EINVAL) }
        let envp = environment.map { $0.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" } }
        let pid = CStrings.with(command) { argv in
            CStrings.with(envp) { envp in
                retime_child_spawn(path, argv, envp, stdin ?? -1, stdout ?? -1, stderr ?? -1)
            }
        }
        guard pid > 0 else { throw ChildProcessError(program: path, code: errno) }
        return ChildProcess(pid: pid)
    }

    /// Waits for the child to end: its exit status, or the number of the
    /// signal that ended it (as Foundation's `terminationStatus`).
    public func wait() -> Int32 {
        retime_child_wait(pid)
    }

    /// Writes `bytes` to `fd` in full; false if the reader went away first
    /// (no SIGPIPE) or the write failed.
    @discardableResult
    public static func write(_ bytes: [UInt8], to fd: Int32) -> Bool {
        bytes.withUnsafeBytes { retime_write_all(fd, $0.baseAddress, $0.count) == 0 }
    }

    /// Everything readable from `fd` until its writer closes it.
    public static func readToEnd(_ fd: Int32) -> [UInt8] {
        var bytes: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 65_536)
        while true {
            let count = buffer.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
            if count > 0 { bytes += buffer[..<count]; continue }
            if count < 0 && errno == EINTR { continue }
            return bytes
        }
    }

    /// A pipe whose ends are closed on exec (the child gets its end
    /// through dup2): (read end, write end).
    public static func pipe() throws(ChildProcessError) -> (read: Int32, write: Int32) {
        var ends: [Int32] = [-1, -1]
        guard retime_pipe_cloexec(&ends) == 0 else { throw ChildProcessError(program: "pipe", code: errno) }
        return (ends[0], ends[1])
    }
}

/// A program that could not be started.
public struct ChildProcessError: Error, CustomStringConvertible {
    public var program: String
    public var code: Int32
    public var description: String { "cannot run \(program): \(String(cString: strerror(code)))" }
}

/// Strings as NULL-terminated C arrays, alive for a closure.
enum CStrings {
    static func with<R>(_ strings: [String]?, _ body: (UnsafePointer<UnsafeMutablePointer<CChar>?>?) -> R) -> R {
        guard let strings else { return body(nil) }
        var pointers = strings.map { strdup($0) } + [nil]
        defer { for pointer in pointers { free(pointer) } }
        return pointers.withUnsafeMutableBufferPointer { body(UnsafePointer($0.baseAddress!)) }
    }
}
