import Domain
import Foundation
import Testing

@Suite("UUID text")
struct UUIDTextTests {
    @Test("writes what Foundation writes, in lower case, and reads it back")
    func formatting() {
        var generator = SystemRandomNumberGenerator()
        var samples = [UUID(uuid: (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)),
                       UUID(uuid: (255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255))]
        for _ in 0..<2_000 { samples.append(UUID(uuid: Self.randomBytes(using: &generator))) }
        for uuid in samples {
            let text = UUIDText.lowercase(uuid)
            #expect(text == uuid.uuidString.lowercased())
            #expect(UUIDText.parse(text) == uuid)
            #expect(UUIDText.parse(uuid.uuidString) == uuid)
        }
    }

    // Foundation on Linux also takes some malformed texts (a digit short, a
    // digit too many: its sscanf stops early), so the oracle is the RFC's
    // grammar, and Foundation gives the value of every well-formed text.
    @Test("accepts exactly the RFC 9562 text form, reading each as Foundation does, and refuses the rest")
    func sameLanguageAsFoundation() {
        var generator = SystemRandomNumberGenerator()
        let base = Array("3f2504e0-4f89-11d3-9a0c-0305e82c3301".utf8)
        // Every byte value at every position, then random mutations, cuts and additions.
        var candidates: [[UInt8]] = []
        for position in base.indices {
            for byte in UInt8(32)...UInt8(127) {
                var mutated = base
                mutated[position] = byte
                candidates.append(mutated)
            }
        }
        for _ in 0..<3_000 {
            var mutated = base
            switch Int.random(in: 0..<4, using: &generator) {
            case 0: mutated[Int.random(in: 0..<36, using: &generator)] = UInt8.random(in: 0...255, using: &generator)
            case 1: mutated.remove(at: Int.random(in: 0..<36, using: &generator))
            case 2: mutated.insert(UInt8.random(in: 32...127, using: &generator), at: Int.random(in: 0...36, using: &generator))
            default: mutated = mutated.map { UInt8(ascii: "-") == $0 ? $0 : (Bool.random(using: &generator) ? $0 : Array("ABCDEF".utf8).randomElement(using: &generator)!) }
            }
            candidates.append(mutated)
        }
        candidates += [[], Array(" 3f2504e0-4f89-11d3-9a0c-0305e82c3301".utf8), Array("3f2504e04f8911d39a0c0305e82c3301".utf8),
                       Array("{3f2504e0-4f89-11d3-9a0c-0305e82c3301}".utf8), Array("3f2504e0-4f89-11d3-9a0c-0305e82c330é".utf8)]
        var accepted = 0
        for bytes in candidates {
            let text = String(decoding: bytes, as: UTF8.self)
            let ours = UUIDText.parse(text)
            #expect(ours == (Self.wellFormed(bytes) ? UUID(uuidString: text) : nil), "\(text)")
            if ours != nil { accepted += 1 }
        }
        #expect(accepted > 1_000)   // the mutations keep many valid, so both sides of the language are exercised
    }

    /// 36 bytes: hyphens at 8, 13, 18 and 23, hex digits elsewhere.
    private static func wellFormed(_ bytes: [UInt8]) -> Bool {
        let hex = Set("0123456789abcdefABCDEF".utf8)
        return bytes.count == 36 && bytes.indices.allSatisfy { index in
            [8, 13, 18, 23].contains(index) ? bytes[index] == UInt8(ascii: "-") : hex.contains(bytes[index])
        }
    }

    private static func randomBytes(using generator: inout SystemRandomNumberGenerator) -> uuid_t {
        var raw: uuid_t = (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)
        withUnsafeMutableBytes(of: &raw) { bytes in
            for index in bytes.indices { bytes[index] = UInt8.random(in: 0...255, using: &generator) }
        }
        return raw
    }
}
