import Dispatch
import FoundationEssentials
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// Runs a system tool (`nft`, `systemctl`) to completion, feeding it
/// `input` and collecting what it prints, as the firewall layer and the
/// daemon's login service drive them.
enum ToolProcess {
    struct Outcome {
        var status: Int32
        var output: Data
        var errors: String
    }

    /// The first of `directories` that holds an executable `name` (the
    /// service may run with a PATH that lacks /usr/sbin).
    static func locate(_ name: String, in directories: [String] = ["/usr/sbin", "/sbin", "/usr/bin", "/bin", "/usr/local/sbin"]) -> String? {
        directories.map { $0 + "/" + name }.first { FileManager.default.isExecutableFile(atPath: $0) }
    }

    /// The first directory of `$PATH`, then of the usual ones, that holds
    /// an executable `name`.
    static func locate(_ name: String, environment: [String: String]) -> String? {
        let path = (environment["PATH"] ?? "").split(separator: ":").map(String.init).filter { $0.hasPrefix("/") }
        return locate(name, in: path + ["/usr/bin", "/bin", "/usr/sbin", "/sbin"])
    }

    /// `environment`: the tool's, else this process's.
    static func run(_ command: [String], input: Data = Data(), environment: [String: String]? = nil) throws -> Outcome {
        // Out of descriptors part way, the pipes already made are closed.
        var made: [(read: Int32, write: Int32)] = []
        do {
            for _ in 0..<3 { made.append(try ChildProcess.pipe()) }
        } catch {
            for pipe in made { close(pipe.read); close(pipe.write) }
            throw error
        }
        let (stdin, stdout, stderr) = (made[0], made[1], made[2])
        let child: ChildProcess
        do {
            child = try ChildProcess.start(command, environment: environment, stdin: stdin.read, stdout: stdout.write, stderr: stderr.write)
        } catch {
            for pipe in made { close(pipe.read); close(pipe.write) }
            throw error
        }
        // The child's ends are its own now: our copies would keep its
        // output open (no end of file) and its input unfinished.
        close(stdin.read); close(stdout.write); close(stderr.write)
        // Written and read on their own threads: a tool that prints while
        // it reads must never wait on a full pipe.
        let group = DispatchGroup()
        let bytes = [UInt8](input)
        DispatchQueue.global().async(group: group) {
            ChildProcess.write(bytes, to: stdin.write)
            close(stdin.write)
        }
        let errors = LockedBytes()
        DispatchQueue.global().async(group: group) {
            errors.set(ChildProcess.readToEnd(stderr.read))
            close(stderr.read)
        }
        let output = ChildProcess.readToEnd(stdout.read)
        close(stdout.read)
        group.wait()
        // Blocks in waitpid: told of the exit at once, no polling.
        let status = child.wait()
        return Outcome(status: status, output: Data(output), errors: String(decoding: errors.get(), as: UTF8.self))
    }
}

/// Bytes handed from a reader thread to the caller.
private final class LockedBytes: Sendable {
    private let bytes = Mutex<[UInt8]>([])
    func set(_ value: [UInt8]) { bytes.withLock { $0 = value } }
    func get() -> [UInt8] { bytes.withLock { $0 } }
}
