import Domain
import JSONDocument

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

        /// As `Codable` encodes it, built by hand: `stop` and `start`
        /// otherwise set up `Codable`'s containers for this record alone.
        var json: JSONValue {
            .object(["session": .string(session.description), "targets": .array(targets.map { .string($0.description) })])
        }

        /// The record `raw` holds, read by hand when it is as `json` makes
        /// it, else through `Codable` (which also says what is wrong).
        static func read(_ raw: JSONValue, key: String) throws -> Block {
            if case .object(let members) = raw, members.count == 2, case .string(let id)? = members["session"], let session = SessionID(id),
               case .array(let items)? = members["targets"] {
                var targets: [Target] = []
                targets.reserveCapacity(items.count)
                for item in items {
                    guard case .string(let text) = item, let target = try? Target(parsing: text) else { break }
                    targets.append(target)
                }
                if targets.count == items.count { return Block(session: session, targets: targets) }
            }
            return try JSONValueCoding.decode(Block.self, from: raw, key: key)
        }
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
        let block = Block(session: session, targets: targets).json
        try store.update(Self.suite, durability: .repairable) { $0["block"] = block }
        logger.info("would block \(targets.count) target(s)", metadata: [
            "session": "\(session)", "targets": .array(targets.map { .string($0.description) }),
        ])
    }

    public func lower(for session: SessionID) async throws {
        let lowered = try store.update(Self.suite, durability: .repairable) { values -> Bool in
            guard let raw = values["block"], try Block.read(raw, key: "").session == session else { return false }
            values.removeValue(forKey: "block")
            return true
        }
        if lowered { logger.info("would lift the block", metadata: ["session": "\(session)"]) }
    }

    public func state() async throws -> ShieldState? {
        guard let raw = try store.values(of: Self.suite)["block"] ?? store.defaults(of: Self.suite)["block"] else { return nil }
        let block = try Block.read(raw, key: "block")
        return ShieldState(session: block.session, targets: block.targets)
    }
}
