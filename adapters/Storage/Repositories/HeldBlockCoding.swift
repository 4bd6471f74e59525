import Domain
import JSONDocument
import Synchronization

/// Turns the service's blocks into the JSON its store keeps and back,
/// remembering what it last did so that a change costs what changed: the
/// blocks read are the blocks last written or read while the JSON is the
/// same, and a block is encoded again only when it changed, its targets
/// (up to 10,000 a user) only when they did. Without it every request
/// of one user decoded and encoded every other user's targets.
final class HeldBlockCoding: Sendable {
    private struct Kept {
        /// The JSON last read or written, and the blocks it holds.
        var json: JSONValue?
        var blocks: [HeldBlock] = []
        /// Each block's JSON as last encoded, by user and session.
        var encoded: [String: (block: HeldBlock, json: JSONValue)] = [:]
    }
    private let kept = Mutex(Kept())

    func decode(_ json: JSONValue, key: String) throws -> [HeldBlock] {
        // Equal JSON is the same blocks: the store hands back the value it
        // was given, so the comparison finds the arrays' storage shared.
        if let blocks = kept.withLock({ $0.json == json ? $0.blocks : nil }) { return blocks }
        let blocks = try JSONValueCoding.decode([HeldBlock].self, from: json, key: key)
        kept.withLock { $0.json = json; $0.blocks = blocks }
        return blocks
    }

    func encode(_ blocks: [HeldBlock], key: String) throws -> JSONValue {
        let earlier = kept.withLock { $0.encoded }
        var encoded: [String: (block: HeldBlock, json: JSONValue)] = [:]
        var values: [JSONValue] = []
        values.reserveCapacity(blocks.count)
        for block in blocks {
            let id = "\(block.uid)/\(block.session)"
            let json = try Self.encode(block, after: earlier[id], key: key)
            encoded[id] = (block, json)
            values.append(json)
        }
        let json = JSONValue.array(values)
        kept.withLock { $0 = Kept(json: json, blocks: blocks, encoded: encoded) }
        return json
    }

    /// `block`'s JSON: the one kept if the block is as it was, else encoded
    /// anew, its targets taken from the kept JSON when they did not change
    /// (the served time of a strict block changes once a minute, its
    /// targets never shrink and seldom grow).
    private static func encode(_ block: HeldBlock, after earlier: (block: HeldBlock, json: JSONValue)?, key: String) throws -> JSONValue {
        guard let earlier else { return try JSONValueCoding.encode(block, key: key) }
        if earlier.block == block { return earlier.json }
        guard earlier.block.targets == block.targets, case .object(let fields) = earlier.json, let targets = fields["targets"] else {
            return try JSONValueCoding.encode(block, key: key)
        }
        var bare = block
        bare.targets = []
        guard case .object(var object) = try JSONValueCoding.encode(bare, key: key) else { return try JSONValueCoding.encode(block, key: key) }
        object["targets"] = targets
        return .object(object)
    }
}
