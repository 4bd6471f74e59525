import Domain
import Foundation

/// The rules every `HeldBlockStore` keeps: blocks read back equal, an
/// update that throws stores nothing, and concurrent updates all hold.
public enum HeldBlockStoreContract {
    public typealias Factory = @Sendable () async throws -> any HeldBlockStore

    struct Refused: Error {}

    static func block(uid: UInt32, strict: Bool = true) -> HeldBlock {
        var block = HeldBlock(uid: uid, session: SessionID(), targets: [try! Target(parsing: "example.com"), try! Target(parsing: "app:steam")],
                              strict: strict, plannedEnd: Fixtures.instant(1_800), length: 1_800,
                              at: BootTimeReading(bootID: "boot-a", seconds: 100.25))
        block.advance(to: BootTimeReading(bootID: "boot-a", seconds: 700.5))
        return block
    }

    public static let checks: [ContractCheck<Factory>] = [
        ContractCheck("a new store holds nothing; stored blocks read back equal in every field") { make in
            let store = try await make()
            try requireEqual(try await store.blocks(), [], "blocks of a new store")
            let stored = [block(uid: 1_000), block(uid: 2_000, strict: false)]
            try await store.update { $0 = stored }
            try requireEqual(try await store.blocks(), stored, "blocks read back")
        },
        ContractCheck("an update that throws stores nothing") { make in
            let store = try await make()
            try await store.update { $0 = [block(uid: 1)] }
            do {
                try await store.update { blocks in
                    blocks.removeAll()
                    throw Refused()
                }
            } catch is Refused {}
            try requireEqual(try await store.blocks().count, 1, "blocks after a refused update")
        },
        ContractCheck("twenty concurrent updates each add their block; all are kept") { make in
            let store = try await make()
            try await withThrowingTaskGroup(of: Void.self) { tasks in
                for uid in 0..<20 { tasks.addTask { try await store.update { $0.append(block(uid: UInt32(uid))) } } }
                try await tasks.waitForAll()
            }
            try requireEqual(Set(try await store.blocks().map(\.uid)), Set((0..<20).map(UInt32.init)), "uids kept")
        },
    ]
}
