import CRetimeLinux
import Domain
import FoundationEssentials
#if canImport(Glibc)
import Glibc
#endif

/// Starts a program that runs on its own: the caller returns at once and may
/// exit; a supervisor kills the program after its time limit and logs its
/// failures (see `retime_spawn_supervised`).
enum DetachedProcess {
    /// Starts `path` with `arguments` (argv[1...]) and `environment`;
    /// false (with the reason in `errno`) if it could not be started.
    static func start(_ path: String, arguments: [String], environment: [String: String],
                      logPath: String?, label: String, timeout: Duration) -> Bool {
        let argv = [path] + arguments
        let envp = environment.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }
        let milliseconds = Int32(clamping: timeout.components.seconds * 1_000 + timeout.components.attoseconds / 1_000_000_000_000_000)
        return withCStrings(argv) { argv in
            withCStrings(envp) { envp in
                retime_spawn_supervised(path, argv, envp, logPath, label, milliseconds) == 0
            }
        }
    }

    /// The strings as a NULL-terminated C array, alive for `body`.
    private static func withCStrings<R>(_ strings: [String], _ body: (UnsafePointer<UnsafeMutablePointer<CChar>?>) -> R) -> R {
        var pointers = strings.map { strdup($0) } + [nil]
        defer { for pointer in pointers { free(pointer) } }
        return pointers.withUnsafeMutableBufferPointer { body(UnsafePointer($0.baseAddress!)) }
    }
}
