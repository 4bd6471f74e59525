import Domain
@testable import RetimeGroup
import Testing

/// The fast path for names already canonical must agree with the full parse.
@Suite("Canonical domain names")
struct DomainNameCanonicalTests {
    @Test("whenever the fast path takes a name, the full parse gives the same; 200,000 random names of likely characters")
    func agreesWithFullParse() {
        let alphabet = Array("abcxyz019-.".utf8) + Array("Aé".utf8)
        var generator = SystemRandomNumberGenerator()
        var taken = 0
        for _ in 0..<200_000 {
            let length = Int.random(in: 1...12, using: &generator)
            let text = String(decoding: (0..<length).map { _ in alphabet.randomElement(using: &generator)! }, as: UTF8.self)
            guard let fast = DomainName.canonical(text) else { continue }
            taken += 1
            #expect((try? DomainName(fullParse: text))?.ascii == fast, "\(text)")
        }
        #expect(taken > 1_000, "the fast path was exercised")
    }

    @Test("what the fast path leaves to the full parse", arguments: ["Example.com", "example.com.", "-a.com", "a-.com", "ab--c.com",
                                                                    "xn--bcher-kva.de", "a..com", "com", "1.2.3.4", "a.b-", ".a.com"])
    func refused(text: String) {
        #expect(DomainName.canonical(text) == nil)
    }

    @Test("a long label and a long name are the full parse's to judge")
    func lengths() {
        #expect(DomainName.canonical(String(repeating: "a", count: 63) + ".com") != nil)
        #expect(DomainName.canonical(String(repeating: "a", count: 64) + ".com") == nil)
        #expect(DomainName.canonical(Array(repeating: String(repeating: "a", count: 60), count: 5).joined(separator: ".")) == nil)
    }
}
