import Domain

/// The system service's blocks as one value in the `blocks` suite of a
/// key-value store (the service's own, in its root-owned state directory).
public struct StoreHeldBlockStore: HeldBlockStore {
    public static let suite = "blocks"
    static let key = "blocks"
    private let store: any KeyValueStore
    private let coding = HeldBlockCoding()

    public init(store: any KeyValueStore) {
        self.store = store
    }

    public func blocks() async throws -> [HeldBlock] {
        try store.storedValue(forKey: Self.key, in: Self.suite).map { try coding.decode($0, key: Self.key) } ?? []
    }

    public func update<Result: Sendable>(_ body: (inout [HeldBlock]) throws -> Result) async throws -> Result {
        try store.update(Self.suite) { values in
            var blocks = try values[Self.key].map { try coding.decode($0, key: Self.key) } ?? []
            let before = blocks
            let result = try body(&blocks)
            if blocks != before { values[Self.key] = try coding.encode(blocks, key: Self.key) }
            return result
        }
    }
}
