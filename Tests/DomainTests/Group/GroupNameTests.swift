import Foundation
import Domain
import Testing

@Suite("GroupName: validation and comparison")
struct GroupNameTests {
    @Test("valid names keep their spelling, trimmed", arguments: ["work", "Deep Work", "Ünïcødé", "a", String(repeating: "x", count: 64)])
    func valid(name: String) throws {
        #expect(try GroupName(" \(name) ").rawValue == name)
    }

    @Test("invalid names are refused", arguments: ["", "  ", "a/b", "tab\there", "bell\u{7}", String(repeating: "x", count: 65),
                                                   "line\u{2028}break", "para\u{2029}graph", "gpj.\u{202E}exe", "iso\u{2066}late\u{2069}", "mark\u{200F}"])
    func invalid(name: String) throws {
        let error = try #require(throws: GroupError.self) { try GroupName(name) }
        #expect(error.code == "group.invalidName")
        #expect(error.kind == .invalidInput)
    }

    @Test("names compare case-insensitively")
    func caseInsensitive() throws {
        #expect(try GroupName("Work") == GroupName("WORK"))
        #expect(try GroupName("Ärger") == GroupName("ärger"))
        #expect(try GroupName("Work") != GroupName("Play"))
        #expect(try Set([GroupName("Work"), GroupName("work")]).count == 1)
    }

    @Test("a plain ASCII name's key (the fast path) is the key Foundation's folding gives, over 20,000 random names")
    func asciiKeysAgreeWithFolding() {
        var generator = SystemRandomNumberGenerator()
        let alphabet = Array(" \t-_.'AZaz09Mmé".unicodeScalars) + (0x20...0x7E).compactMap(Unicode.Scalar.init)
        for _ in 0..<20_000 {
            let length = Int.random(in: 1...12, using: &generator)
            let name = String(String.UnicodeScalarView((0..<length).map { _ in alphabet.randomElement(using: &generator)! }))
            let folded = name.trimmed.folding(options: [.caseInsensitive], locale: nil).precomposedStringWithCanonicalMapping
            #expect(NameRules.comparisonKey(name) == folded, "\(name.debugDescription)")
        }
    }

    @Test("the non-ASCII key (folded without ICU) is Foundation's folding for every cased letter of the BMP, bar letters its tables lack")
    func foldingAgreesWithFoundation() {
        var differ: [String] = []
        var newer = 0
        for value in 0x80...0xFFFF {
            guard let scalar = Unicode.Scalar(value), scalar.properties.changesWhenCaseFolded || scalar.properties.isCased else { continue }
            let text = String(scalar)
            let foundation = text.folding(options: [.caseInsensitive], locale: nil).precomposedStringWithCanonicalMapping
            guard text.caseFolded != foundation else { continue }
            // Foundation on Linux folds from tables of an older Unicode:
            // letters added since (U+1C80 rounded Cyrillic, U+A7CB...) it
            // leaves as they are, where Unicode's folding (and ours) lowers them.
            if foundation == text && scalar.properties.changesWhenCaseFolded { newer += 1; continue }
            differ.append("U+\(String(value, radix: 16)) \(text): \(text.caseFolded), Foundation \(foundation)")
        }
        #expect(differ.isEmpty, "\(differ.count) differ: \(differ.prefix(40))")
        #expect(newer < 40)
    }
}
