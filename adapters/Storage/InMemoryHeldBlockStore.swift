import Domain
import Synchronization

/// The system service's blocks in memory: for tests, and the reference
/// `HeldBlockStore` the file-backed one must match.
public final class InMemoryHeldBlockStore: HeldBlockStore {
    private let held = Mutex<[HeldBlock]>([])

    public init() {}

    public func blocks() async throws -> [HeldBlock] { held.withLock { $0 } }

    public func update<Result: Sendable>(_ body: (inout [HeldBlock]) throws -> Result) async throws -> Result {
        try held.withLock { blocks in
            var copy = blocks
            let result = try body(&copy)
            blocks = copy
            return result
        }
    }
}
