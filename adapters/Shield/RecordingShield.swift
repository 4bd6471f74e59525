import Domain

/// The `none` shield: enforces nothing, but records in the store what it
/// would block (so every process agrees on the block's owner) and logs it.
/// The shield of a fresh install, and of machines where no enforcing shield
/// is authorised.
public struct RecordingShield: Shield {
    public static let suite = "shield"
    private let store: any KeyValueStore
    private let logger: Logger

    private struct Block: Codable {
        var session: SessionID
        var targets: [Target]
    }

    public static let identity = "none"
    public var identity: String { Self.identity }

    /// It records; it blocks nothing.
    public func reach(askingAboutApps: Bool) async -> ShieldReach { .recordsOnly }

    public init(store: any KeyValueStore, logger: Logger) {
        self.store = store
        self.logger = logger
    }

    // The record is derivable, so its writes spare the directory's sync: a
    // raise a crash undoes is raised again by the next command (the running
    // session's block is down), and a lowering undone leaves a record of an
    // ended session, which blocks nothing and the next raise replaces.
    public func raise(_ targets: [Target], for session: SessionID) async throws {
        try store.set(Block(session: session, targets: targets), forKey: "block", in: Self.suite, durability: .repairable)
        logger.info("would block \(targets.count) target(s)", metadata: [
            "session": "\(session)", "targets": .array(targets.map { .string($0.description) }),
        ])
    }

    public func lower(for session: SessionID) async throws {
        let lowered = try store.update(Self.suite, durability: .repairable) { values -> Bool in
            guard let raw = values["block"], try JSONValueCoding.decode(Block.self, from: raw).session == session else { return false }
            values.removeValue(forKey: "block")
            return true
        }
        if lowered { logger.info("would lift the block", metadata: ["session": "\(session)"]) }
    }

    public func state() async throws -> ShieldState? {
        try store.value(Block.self, forKey: "block", in: Self.suite).map { ShieldState(session: $0.session, targets: $0.targets) }
    }
}
