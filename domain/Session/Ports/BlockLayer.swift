/// One way the system service enforces the blocks it holds (the hosts
/// file; later the firewall and apps). A layer is machine-wide: it is given
/// every user's blocks at once and enforces their union, so lowering one
/// user's block never lifts a target another user's block still holds.
public protocol BlockLayer: Sendable {
    /// The layer's name in `system status` (`hosts`).
    var name: String { get }
    /// Makes the layer enforce exactly `blocks` (none: it enforces nothing).
    func enforce(_ blocks: [HeldBlock]) async throws
}
