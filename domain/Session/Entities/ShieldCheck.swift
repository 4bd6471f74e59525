import RetimeGroup

/// How `shield test` judges a finding or a target: closed to the caller
/// (`blocked`), reachable (`open`), or not known either way (`unknown`: an
/// address it could not reach, a name it could not resolve).
public enum ShieldVerdict: String, Codable, Sendable, CaseIterable {
    case blocked, open, unknown
}

/// What one layer found about one target (`shield test`): its verdict for
/// the caller right now, and the evidence in words.
public struct LayerCheck: Codable, Sendable, Equatable {
    /// What a finding is evidence of.
    public enum Kind: String, Codable, Sendable {
        /// The state of a layer that may hold the target (the hosts file's
        /// block, the firewall's set, the app layer): blocked when it holds it.
        case layer
        /// A way the user's programs would take to the target (the system
        /// resolver, DNS-over-HTTPS, starting an app): each one must be closed.
        case path
        /// Shown, but deciding nothing (the real addresses, which only a
        /// program that knows them would try).
        case evidence
    }

    public var layer: String
    public var verdict: ShieldVerdict
    public var detail: String
    public var kind: Kind

    public init(layer: String, verdict: ShieldVerdict, detail: String, kind: Kind) {
        self.layer = layer
        self.verdict = verdict
        self.detail = detail
        self.kind = kind
    }

    /// A layer's state: it holds the target or it does not.
    public init(layer: String, blocked: Bool, detail: String) {
        self.init(layer: layer, verdict: blocked ? .blocked : .open, detail: detail, kind: .layer)
    }

    public var blocked: Bool { verdict == .blocked }
    public var isPath: Bool { kind == .path }

    private enum Keys: String, CodingKey { case layer, blocked, detail, isPath, verdict, kind }

    // The system service sends its layers' findings to clients of other
    // versions: `blocked` and `isPath` are still written for those from
    // before verdicts, and a finding from such a service still reads.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: Keys.self)
        layer = try container.decode(String.self, forKey: .layer)
        detail = try container.decode(String.self, forKey: .detail)
        let blocked = try container.decodeIfPresent(Bool.self, forKey: .blocked) ?? false
        verdict = try container.decodeIfPresent(ShieldVerdict.self, forKey: .verdict) ?? (blocked ? .blocked : .open)
        let path = try container.decodeIfPresent(Bool.self, forKey: .isPath) ?? false
        kind = try container.decodeIfPresent(Kind.self, forKey: .kind) ?? (path ? .path : .layer)
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: Keys.self)
        try container.encode(layer, forKey: .layer)
        try container.encode(blocked, forKey: .blocked)
        try container.encode(detail, forKey: .detail)
        try container.encode(isPath, forKey: .isPath)
        try container.encode(verdict, forKey: .verdict)
        try container.encode(kind, forKey: .kind)
    }
}

/// One target as `shield test` judges it. A layer's state alone (a hosts
/// line, a firewall entry) proves nothing while a path around it is open,
/// and a closed path proves nothing of retime while no layer holds the
/// target (the site may be down, or the DNS out of reach).
public struct TargetCheck: Sendable, Equatable {
    public var target: Target
    public var layers: [LayerCheck]

    public init(target: Target, layers: [LayerCheck]) {
        self.target = target
        self.layers = layers
    }

    /// `open` when any path is open; else `blocked` when a layer holds the
    /// target and every path tried is closed; else `unknown`.
    public var verdict: ShieldVerdict {
        let paths = layers.filter(\.isPath)
        if paths.contains(where: { $0.verdict == .open }) { return .open }
        guard isHeld, paths.allSatisfy({ $0.verdict == .blocked }) else { return .unknown }
        return .blocked
    }

    public var blocked: Bool { verdict == .blocked }

    /// Whether some layer holds the target for the caller.
    public var isHeld: Bool { layers.contains { $0.kind == .layer && $0.verdict == .blocked } }

    /// The open paths, which make the target reachable although it should not be.
    public var leaks: [LayerCheck] { layers.filter { $0.isPath && $0.verdict == .open } }

    /// Why the verdict is `unknown`, in words: the paths that could not be
    /// told, or that no layer holds the target.
    public var unknowns: [String] {
        guard verdict == .unknown else { return [] }
        let untold = layers.filter { $0.isPath && $0.verdict == .unknown }.map(\.layer)
        return (isHeld ? [] : ["no layer holds it"]) + (untold.isEmpty ? [] : [untold.joined(separator: ", ") + " not known"])
    }
}
