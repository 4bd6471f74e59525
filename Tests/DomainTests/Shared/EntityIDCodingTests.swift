import Domain
import Foundation
import JSONDocument
import Testing

@Suite("Entity ids in JSON")
struct EntityIDCodingTests {
    struct Holder: Codable, Equatable { var id: GroupID }

    @Test("an id is read in any case, by the store's coder and by JSONDecoder alike, and written in lower case")
    func roundTrip() throws {
        let text = "3F2504E0-4F89-11D3-9A0C-0305E82C3301"
        let fromTree = try JSONValueDecoder().decode(Holder.self, from: .object(["id": .string(text)]))
        let fromText = try JSONDecoder().decode(Holder.self, from: Data(#"{"id":"\#(text.lowercased())"}"#.utf8))
        #expect(fromTree == fromText)
        #expect(fromTree.id.description == text.lowercased())
        #expect(try JSONValueEncoder().encode(fromTree) == .object(["id": .string(text.lowercased())]))
    }

    @Test("a text that is not a UUID is a data-corruption error naming it", arguments: ["", "42", "3F2504E0-4F89-11D3-9A0C-0305E82C330", "not-a-uuid"])
    func refused(text: String) {
        do {
            _ = try JSONValueDecoder().decode(Holder.self, from: .object(["id": .string(text)]))
            Issue.record("'\(text)' was accepted")
        } catch DecodingError.dataCorrupted(let context) {
            #expect(context.debugDescription.contains("'\(text)'"))
        } catch {
            Issue.record("unexpected \(error)")
        }
    }

    @Test("a number where an id should be is a type mismatch")
    func wrongType() {
        #expect(throws: DecodingError.self) { try JSONValueDecoder().decode(Holder.self, from: .object(["id": .int(7)])) }
    }
}
