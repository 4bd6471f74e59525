extension StringProtocol {
    /// Whether the text holds a control character (C0, DEL or C1): names,
    /// tags and app names may not, since they end up in terminals and files.
    // The members are inlinable so that callers in other modules get them
    // specialised for their concrete string type: called generically, the
    // standard library's collection algorithms look associated types up by
    // name on first use, scanning every conformance record in the binary
    // (about 0.25 M instructions each time).
    @inlinable
    public var containsControlCharacter: Bool {
        unicodeScalars.contains { $0.properties.generalCategory == .control }
    }

    /// Whether the text holds a line or paragraph separator (U+2028,
    /// U+2029) or a text-direction control (U+202E and the others): in a
    /// name they break a listing's lines or make it read as something else.
    public var containsLayoutControl: Bool {
        unicodeScalars.contains {
            let category = $0.properties.generalCategory
            return category == .lineSeparator || category == .paragraphSeparator || $0.properties.isBidiControl
        }
    }

    /// The text without leading and trailing white space and line breaks:
    /// the scalars Foundation's `.whitespacesAndNewlines` holds (Unicode's
    /// White_Space property, and U+200B ZERO WIDTH SPACE, which Foundation
    /// counts too). Written here because Foundation's version builds its
    /// character sets on first use, a quarter of a millisecond of every
    /// command that reads a name.
    @inlinable
    public var trimmed: String { trimming { $0.properties.isWhitespace || $0 == "\u{200B}" } }

    /// The text without leading and trailing spaces and tabs, as
    /// Foundation's `.whitespaces` (category Zs, U+0009 and U+200B); line
    /// breaks stay.
    @inlinable
    public var trimmedSpaces: String {
        trimming { $0 == "\t" || $0 == "\u{200B}" || $0.properties.generalCategory == .spaceSeparator }
    }

    @inlinable
    func trimming(_ isTrimmed: (Unicode.Scalar) -> Bool) -> String {
        let scalars = unicodeScalars
        guard let first = scalars.firstIndex(where: { !isTrimmed($0) }),
              let last = scalars.lastIndex(where: { !isTrimmed($0) }) else { return "" }
        var result = String.UnicodeScalarView()
        // Scalar by scalar: the generic append(contentsOf:) is not
        // specialised even here.
        for scalar in scalars[first...last] { result.append(scalar) }
        return String(result)
    }
}

extension StringProtocol {
    /// The text in Unicode's canonical composition (NFC), from the standard
    /// library's own tables (Foundation's `precomposedStringWithCanonicalMapping`
    /// needs ICU, which the binary does not carry).
    public var canonicallyComposed: String { String(decoding: String(self)._nfcCodeUnits, as: UTF8.self) }

    /// The text case-folded for comparison, composed, without ICU: upper
    /// then lower case, twice (so `ẞ` becomes `ß`, then `ss`), gives
    /// Unicode's full case folding (`ß` and `SS` alike, final sigma as
    /// sigma, ligatures apart), except that dotless `ı` must stay itself.
    public var caseFolded: String {
        func fold(_ part: Substring) -> String { part.uppercased().lowercased().uppercased().lowercased() }
        return split(separator: "ı", omittingEmptySubsequences: false).map { fold(Substring($0)) }.joined(separator: "ı").canonicallyComposed
    }
}

extension StringProtocol {
    /// The text without leading and trailing line breaks, as Foundation's
    /// `.newlines` (U+000A-U+000D, U+0085, U+2028, U+2029).
    public var trimmedLineBreaks: String {
        trimming { (0x0A...0x0D).contains($0.value) || $0.value == 0x85 || $0.value == 0x2028 || $0.value == 0x2029 }
    }

    /// The text with every occurrence of `target` replaced, matched scalar
    /// by scalar as Foundation's `replacingOccurrences(of:with:)` does (the
    /// standard library's `replacing` matches whole characters, so it would
    /// miss the `\n` of a `\r\n` or a quote a combining mark follows).
    public func replacingAll(_ target: String, with replacement: String) -> String {
        let scalars = String(self).unicodeScalars, pattern = target.unicodeScalars
        guard !pattern.isEmpty else { return String(self) }
        return String(String.UnicodeScalarView(scalars.replacing(pattern, with: replacement.unicodeScalars)))
    }
}
