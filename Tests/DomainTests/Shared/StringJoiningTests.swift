import Domain
import Testing

/// The standard library's joining, reached through a generic context (where
/// the project's concrete `[String].joined` is not visible).
private func standardJoined<C: BidirectionalCollection>(_ parts: C, _ separator: String) -> String where C.Element == String {
    parts.joined(separator: separator)
}

@Suite("Joining strings")
struct StringJoiningTests {
    @Test("[String].joined gives the standard library's result", arguments: [
        [], [""], ["", ""], ["a"], ["a", "b", "c"], ["", "x", ""], ["é", "👩‍👩‍👧", "\u{301}", "line\nbreak"],
    ] as [[String]])
    func sameAsStandardLibrary(parts: [String]) {
        for separator in ["", ", ", "\n", "\u{301}", "—"] {
            #expect(parts.joined(separator: separator) == standardJoined(parts, separator), "separator \(separator.debugDescription)")
        }
        #expect(parts.joined() == standardJoined(parts, ""))
    }
}
