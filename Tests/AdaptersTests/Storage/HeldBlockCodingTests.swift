@testable import Adapters
import Domain
import Foundation
import JSONDocument
import Testing

/// The service's store remembers the blocks it last read or wrote, so that
/// one user's request does not decode and encode every other user's
/// targets (issue 44). What it writes must be what encoding every block
/// anew writes, and what it reads what is on disk now.
@Suite("The service's blocks, encoded and decoded by what changed")
struct HeldBlockCodingTests {
    static func block(_ uid: UInt32, _ names: Range<Int>, strict: Bool = false) -> HeldBlock {
        HeldBlock(uid: uid, session: SessionID(), targets: names.map { try! Target(parsing: "n\($0).example") }, strict: strict,
                  plannedEnd: Date(timeIntervalSince1970: 1_000_000), length: 3_000, at: BootTimeReading(bootID: "b", seconds: 10))
    }

    @Test("every change writes the JSON that encoding all blocks anew writes, and reads back as the blocks")
    func sameAsEncodingAnew() throws {
        let coding = HeldBlockCoding()
        var blocks = [Self.block(1_000, 0..<500, strict: true), Self.block(1_001, 500..<510)]
        var steps: [[HeldBlock]] = [blocks]
        blocks[0].advance(to: BootTimeReading(bootID: "b", seconds: 70))  // served time only
        steps.append(blocks)
        blocks[1].targets.append(try Target(parsing: "late.example"))  // one user's targets
        steps.append(blocks)
        blocks.append(Self.block(1_002, 0..<3))  // a new user
        steps.append(blocks)
        blocks.remove(at: 1)  // one lowered
        steps.append(blocks)
        steps.append([])
        for (index, step) in steps.enumerated() {
            let json = try coding.encode(step, key: "blocks")
            #expect(json == (try JSONValueCoding.encode(step, key: "blocks")), "step \(index)")
            #expect(try coding.decode(json, key: "blocks") == step, "step \(index)")
            #expect(try HeldBlockCoding().decode(json, key: "blocks") == step, "step \(index), decoded afresh")
        }
    }

    @Test("a store reads what another writer left, not what it remembers")
    func anotherWriter() async throws {
        let directory = TemporaryDirectory().path
        let mine = StoreHeldBlockStore(store: JSONFileStore(directory: directory))
        let theirs = StoreHeldBlockStore(store: JSONFileStore(directory: directory))
        let first = Self.block(1_000, 0..<50), second = Self.block(1_001, 0..<5)
        try await mine.update { $0 = [first] }
        #expect(try await mine.blocks() == [first])
        try await theirs.update { $0.append(second) }
        #expect(try await mine.blocks() == [first, second])
        try await mine.update { $0.removeAll { $0.uid == 1_000 } }
        #expect(try await theirs.blocks() == [second])
        #expect(try await StoreHeldBlockStore(store: JSONFileStore(directory: directory)).blocks() == [second])
    }
}
