import FoundationEssentials
import RetimeGroup
import RetimeSession

/// One way the system service enforces the blocks it holds: the hosts
/// file, the firewall, apps. A layer is machine-wide: it is given every
/// user's blocks at once and enforces their union, so lowering one user's
/// block never lifts a target another user's block still holds.
public protocol BlockLayer: Sendable {
    /// The layer's name in `system status` and `shield test` (`hosts`).
    var name: String { get }
    /// Makes the layer enforce exactly `blocks` (none: it enforces nothing).
    /// Returns when it must be given them again although nothing changed
    /// (the firewall re-resolving its domains), or nil.
    func enforce(_ blocks: [HeldBlock]) async throws -> Date?
    /// What the layer does on this machine, for `system status`.
    func report() async -> LayerReport
    /// Whether the layer enforces `target` for `uid` right now, as far as
    /// the layer itself can see (`shield test`); nil when it has nothing to
    /// say about that kind of target.
    func check(_ target: Target, for uid: UInt32) async -> LayerCheck?
    /// `check` of every target at once, in their order: what one request
    /// of `shield test` asks. A layer that reads a file or the kernel to
    /// answer reads it once here, not once a target, so the cost of a
    /// request grows with its targets only by a lookup each.
    func checks(_ targets: [Target], for uid: UInt32) async -> [LayerCheck?]
}

extension BlockLayer {
    public func check(_ target: Target, for uid: UInt32) async -> LayerCheck? { nil }

    public func checks(_ targets: [Target], for uid: UInt32) async -> [LayerCheck?] {
        var found: [LayerCheck?] = []
        found.reserveCapacity(targets.count)
        for target in targets { found.append(await check(target, for: uid)) }
        return found
    }
}

/// A layer as `system status` reports it: whether it enforces anything on
/// this machine and, in words, how (or why not), and why its last attempt
/// to enforce the blocks failed, if it did.
public struct LayerReport: Codable, Sendable, Equatable {
    public var name: String
    public var active: Bool
    public var detail: String
    /// Nil while the layer enforces what it is given.
    public var failure: String?
    /// Its machine-wide counts (how many users block, lookups refused,
    /// apps ended): every user's activity, so the service shows them to
    /// root alone (`forUser()`).
    public var usage: String?

    public init(name: String, active: Bool, detail: String, failure: String? = nil, usage: String? = nil) {
        self.name = name
        self.active = active
        self.detail = detail
        self.failure = failure
        self.usage = usage
    }

    /// The report as a user other than root sees it: what the layer does,
    /// nothing of what other users do.
    public func forUser() -> LayerReport {
        var report = self
        report.usage = nil
        return report
    }

    /// Whether the layer enforces the blocks now: on, and not failing.
    public var enforcing: Bool { active && failure == nil }
}
