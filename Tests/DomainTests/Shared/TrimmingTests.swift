import Domain
import Foundation
import Testing

/// Names, tags and values are trimmed by the domain's own code rather than
/// Foundation's character sets; the two must agree on every character.
@Suite("Trimming agrees with Foundation's character sets")
struct TrimmingTests {
    @Test("trimmed = whitespacesAndNewlines and trimmedSpaces = whitespaces, for every scalar of the first planes")
    func everyScalar() {
        for value in UInt32(0)...0x3_1000 {
            guard let scalar = Unicode.Scalar(value) else { continue }
            for text in ["\(scalar)", "\(scalar)a\(scalar)", "a\(scalar)b", "\(scalar)\(scalar) x \(scalar)"] {
                #expect(text.trimmed == text.trimmingCharacters(in: .whitespacesAndNewlines), "U+\(String(value, radix: 16))")
                #expect(text.trimmedSpaces == text.trimmingCharacters(in: .whitespaces), "U+\(String(value, radix: 16))")
            }
        }
    }

    @Test("combining marks after trimmed space stay, as Foundation keeps them")
    func combiningMarks() {
        #expect(" \u{301}a ".trimmed == "\u{301}a")
        #expect("\t\n  ".trimmed == "")
        #expect(" \n x".trimmedSpaces == "\n x")
    }
}
