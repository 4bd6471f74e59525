import RetimeGroup
import RetimeSession

/// Tests, for the calling user and right now, whether targets are really
/// blocked: each enforcement layer's state and each way a program could
/// still reach the target (`shield test`). The contract every adapter keeps
/// is `ShieldInspectorContract`.
public protocol ShieldInspector: Sendable {
    /// One check per target, in the order given.
    func check(_ targets: [Target]) async -> [TargetCheck]
}
