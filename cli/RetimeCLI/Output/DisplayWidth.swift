/// How many terminal columns text takes: a CJK character or an emoji takes
/// two, a combining mark none, so columns of group names in Chinese or with
/// an emoji line up with the others (`String.count` counts characters).
enum DisplayWidth {
    static func of(_ text: some StringProtocol) -> Int {
        // Printable ASCII, nearly every cell of a table: a column a byte,
        // without breaking the text into characters (a `report` measures
        // each cell twice).
        var ascii = true
        for byte in text.utf8 where byte < 0x20 || byte >= 0x7F {
            ascii = false
            break
        }
        return ascii ? text.utf8.count : text.reduce(0) { $0 + of($1) }
    }

    /// Escape sequences (colour) take no column.
    static func visible(_ text: some StringProtocol) -> Int {
        var width = 0, escaped = false
        for character in text {
            if character == "\u{1B}" { escaped = true; continue }
            if escaped { if character.isLetter { escaped = false }; continue }
            width += of(character)
        }
        return width
    }

    static func of(_ character: Character) -> Int {
        // ASCII first: no Unicode property tables (their look-ups were a
        // third of a `status`, whose prose is wrapped word by word).
        if let ascii = character.asciiValue { return ascii < 0x20 || ascii == 0x7F ? 0 : 1 }
        guard let first = character.unicodeScalars.first else { return 0 }
        if first.properties.isEmojiPresentation || character.unicodeScalars.contains(where: { $0.value == 0xFE0F }) { return 2 }
        switch first.properties.generalCategory {
        case .nonspacingMark, .enclosingMark, .format, .control: return 0
        default: break
        }
        return isWide(first.value) ? 2 : 1
    }

    /// East Asian Wide and Fullwidth ranges (UAX #11), the common ones.
    private static func isWide(_ value: UInt32) -> Bool {
        switch value {
        case 0x1100...0x115F, 0x2E80...0x303E, 0x3041...0x33FF, 0x3400...0x4DBF, 0x4E00...0x9FFF, 0xA000...0xA4CF,
             0xAC00...0xD7A3, 0xF900...0xFAFF, 0xFE30...0xFE4F, 0xFF00...0xFF60, 0xFFE0...0xFFE6, 0x20000...0x3FFFD:
            true
        default: false
        }
    }

    /// `text` padded with spaces to `width` columns (never cut).
    static func pad(_ text: String, to width: Int) -> String {
        text + String(repeating: " ", count: max(0, width - of(text)))
    }

    /// `text` padded on the left to `width` columns.
    static func padLeft(_ text: String, to width: Int) -> String {
        String(repeating: " ", count: max(0, width - of(text))) + text
    }

    /// At most `width` columns of `text`, with `…` where it was cut.
    static func truncate(_ text: String, to width: Int) -> String {
        guard of(text) > width else { return text }
        var result = "", used = 0
        for character in text {
            let next = of(character)
            if used + next > width - 1 { break }
            result.append(character)
            used += next
        }
        return result + "…"
    }
}

/// Prose for people, wrapped to the terminal's width (80 columns when the
/// output is not a terminal): no line of `start` or `status` runs past it.
enum TextWrap {
    /// Each line of `text` wrapped between words to `width` columns; the
    /// lines a long one becomes are indented by `indent`.
    static func wrap(_ text: String, width: Int, indent: String = "") -> String {
        text.split(separator: "\n", omittingEmptySubsequences: false).map { line -> String in
            guard DisplayWidth.visible(line) > width else { return String(line) }
            let parts = HelpRenderer.wrap(String(line), width: max(20, width))
            guard parts.count > 1 else { return parts.first ?? "" }
            // Re-wrapped below the first line, narrower by the indent.
            let rest = HelpRenderer.wrap(parts.dropFirst().joined(separator: " "), width: max(20, width - indent.count))
            return ([parts[0]] + rest.map { indent + $0 }).joined(separator: "\n")
        }.joined(separator: "\n")
    }
}
