/// What one layer found about one target (`shield test`): blocked or not
/// for the caller right now, and the evidence in words.
public struct LayerCheck: Codable, Sendable, Equatable {
    public var layer: String
    public var blocked: Bool
    public var detail: String
    /// Whether this finding is a way to the target itself (a lookup or a
    /// connection the user's programs could make), rather than the state
    /// of a layer (what the hosts file or the firewall holds).
    public var isPath: Bool

    public init(layer: String, blocked: Bool, detail: String, isPath: Bool = false) {
        self.layer = layer
        self.blocked = blocked
        self.detail = detail
        self.isPath = isPath
    }
}

/// One target as `shield test` judges it: blocked when every way to it that
/// was tried is closed. A layer's state alone (a hosts line, a firewall
/// entry) proves nothing while a path around it is open: that is a leak.
public struct TargetCheck: Sendable, Equatable {
    public var target: Target
    public var layers: [LayerCheck]

    public init(target: Target, layers: [LayerCheck]) {
        self.target = target
        self.layers = layers
    }

    public var blocked: Bool {
        let paths = layers.filter(\.isPath)
        return paths.isEmpty ? layers.allSatisfy(\.blocked) && !layers.isEmpty : paths.allSatisfy(\.blocked)
    }

    /// The open paths, which make the target reachable although it should not be.
    public var leaks: [LayerCheck] { layers.filter { $0.isPath && !$0.blocked } }
}
