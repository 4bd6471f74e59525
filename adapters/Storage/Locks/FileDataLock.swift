import Domain
import FoundationEssentials
#if canImport(Glibc)
import Glibc
#endif
import Synchronization

/// The data lock of a data directory: an exclusive `flock` on one lock file
/// beside the store's suites, held by whichever process (the CLI, the
/// daemon) runs a change that checks more than one record.
///
/// A `flock` belongs to an open file, not to a thread, so the holder may
/// suspend while it holds it. Tasks of one process queue in memory first
/// (one gate per lock file): a second task waiting on the `flock` itself
/// would block a thread that the holder may need to finish. Re-entry is
/// known from a task-local set of held locks: a nested call runs at once.
public struct FileDataLock: DataLock {
    @TaskLocal private static var held: Set<String> = []
    private static let gates = Mutex<[String: InMemoryDataLock]>([:])
    public let path: String
    public let timeout: Double
    private let gate: InMemoryDataLock

    /// The lock of the store in `directory` (`data.lock`, created 0600).
    public init(storeDirectory directory: String, timeout: Double = 5) {
        let path = directory + "/data.lock"
        self.path = path
        self.timeout = timeout
        gate = Self.gates.withLock { gates in
            if let gate = gates[path] { return gate }
            let gate = InMemoryDataLock()
            gates[path] = gate
            return gate
        }
    }

    public func exclusively<T>(_ body: () async throws -> T) async throws -> T {
        if Self.held.contains(path) { return try await body() }
        return try await gate.exclusively {
            try POSIXFiles.ensureDirectory(POSIXFiles.parentDirectory(of: path))
            let lock = try FileLock(path: path, timeout: timeout)
            let result = try await Self.$held.withValue(Self.held.union([path])) { try await body() }
            _ = consume lock
            return result
        }
    }
}
