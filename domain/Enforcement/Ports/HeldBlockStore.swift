/// Where the system service keeps the blocks it holds, in its own state
/// directory: written durably, read back after a restart or a reboot.
///
/// The contract every adapter keeps is `HeldBlockStoreContract`.
public protocol HeldBlockStore: Sendable {
    func blocks() async throws -> [HeldBlock]
    /// Runs `body` on the blocks under an exclusive lock and stores what it
    /// leaves. If `body` throws, nothing is stored.
    func update<Result: Sendable>(_ body: (inout [HeldBlock]) throws -> Result) async throws -> Result
}
