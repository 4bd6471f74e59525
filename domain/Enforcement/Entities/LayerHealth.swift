import FoundationEssentials
import Synchronization

/// Which of the system service's layers failed the last time it was given
/// the blocks, and why: what `system status`, `shield test` and a client
/// whose raise went through are told, so a block that is not enforced is
/// said, never silently dropped. Shared by every `HeldBlocks` of a service.
public final class LayerHealth: Sendable {
    /// How soon a failed layer is given the blocks again.
    public static let retryDelay: TimeInterval = 5

    private let failures = Mutex<[String: String]>([:])

    public init() {}

    /// The failure of `layer`'s last attempt; nil when it succeeded.
    public func failure(of layer: String) -> String? {
        failures.withLock { $0[layer] }
    }

    /// Records a failure; whether it is news (the layer worked before, or
    /// failed otherwise), so a layer failing at every retry is said once.
    public func failed(_ layer: String, _ reason: String) -> Bool {
        failures.withLock { failures in
            defer { failures[layer] = reason }
            return failures[layer] != reason
        }
    }

    /// Records a success; the failure it ends, if the layer had failed.
    public func recovered(_ layer: String) -> String? {
        failures.withLock { $0.removeValue(forKey: layer) }
    }
}
