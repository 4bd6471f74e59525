import FoundationEssentials

/// A host name to block, in the ASCII form that resolvers and hosts files use
/// (IDNA A-labels, lower-case), together with the rules that make it valid.
public struct DomainName: Hashable, Sendable, CustomStringConvertible {
    public static let maxLength = 253
    public static let maxLabelLength = 63

    /// The lower-case ASCII form, labels joined by dots, no trailing dot.
    public let ascii: String

    /// Parses what a user typed: `Example.COM`, `bücher.de`, `xn--bcher-kva.de`.
    public init(_ text: String) throws(GroupError) {
        // A name already in canonical form (what the store holds: every
        // group read decodes its targets) needs none of the work below.
        if let canonical = Self.canonical(text) {
            self.init(canonical: canonical)
            return
        }
        try self.init(fullParse: text)
    }

    private init(canonical: String) {
        ascii = canonical
    }

    /// The name when `text` is already canonical (see `canonical(_:)`), else nil.
    static func ifCanonical(_ text: String) -> DomainName? {
        canonical(text).map(DomainName.init(canonical:))
    }

    /// The whole parse: trimming, IDNA, every rule with its message.
    init(fullParse text: String) throws(GroupError) {
        func invalid(_ reason: String) -> GroupError { .invalidTarget(text, reason: reason) }
        var name = text.trimmedSpaces
        // IDNA treats the ideographic full stops as dots.
        for dot in ["\u{3002}", "\u{FF0E}", "\u{FF61}"] { name = name.replacing(dot, with: ".") }
        if name.hasSuffix(".") { name.removeLast() }
        guard !name.isEmpty else { throw invalid("it is empty") }
        guard !name.contains("://"), !name.contains("/") else {
            throw invalid(Self.hostOfURL(name).map { "give the domain, not a URL: '\($0)'" }
                          ?? "give a domain name such as example.com, not a URL")
        }
        guard !name.unicodeScalars.contains(where: { $0.properties.isWhitespace }) else {
            throw invalid("a domain name has no spaces")
        }
        guard !name.hasPrefix("*.") else { throw invalid("leave out '*.': subdomains are blocked already") }
        let labels = name.split(separator: ".", omittingEmptySubsequences: false)
        guard labels.count >= 2 else { throw invalid("a domain needs a dot, e.g. \(name).com") }
        var asciiLabels: [String] = []
        for label in labels {
            asciiLabels.append(try Self.asciiLabel(label, in: text))
        }
        guard !asciiLabels.last!.allSatisfy(\.isNumber) else {
            throw invalid("an IP address is not a domain name")
        }
        let ascii = asciiLabels.joined(separator: ".")
        guard ascii.utf8.count <= Self.maxLength else {
            throw invalid("it is longer than \(Self.maxLength) characters")
        }
        self.ascii = ascii
    }

    /// `text` itself when it is exactly what the full parse would give:
    /// lower-case letters, digits and hyphens in 2+ labels of 1-63 bytes,
    /// none starting or ending with '-' or with '--' third and fourth (so
    /// no `xn--` label, which needs its Punycode checked), the last not all
    /// digits, 253 bytes at most. Anything else takes the full parse.
    static func canonical(_ text: String) -> String? {
        var labels = 0, length = 0, allDigits = true
        var bytes: (UInt8, UInt8, UInt8, UInt8) = (0, 0, 0, 0)
        var previous: UInt8 = 0
        for byte in text.utf8 {
            length += 1
            if byte == UInt8(ascii: ".") {
                guard length > 1, previous != UInt8(ascii: "-") else { return nil }
                labels += 1
                length = 0
                allDigits = true
            } else {
                let digit = (0x30...0x39).contains(byte)
                guard digit || (0x61...0x7A).contains(byte) || byte == UInt8(ascii: "-"), length <= maxLabelLength else { return nil }
                if length == 1 && byte == UInt8(ascii: "-") { return nil }
                if length <= 4 {
                    switch length {
                    case 1: bytes.0 = byte
                    case 2: bytes.1 = byte
                    case 3: bytes.2 = byte
                    default: bytes.3 = byte
                    }
                    if length == 4, bytes.2 == UInt8(ascii: "-"), bytes.3 == UInt8(ascii: "-") { return nil }
                }
                allDigits = allDigits && digit
            }
            previous = byte
        }
        guard length > 0, previous != UInt8(ascii: "-"), labels >= 1, !allDigits, text.utf8.count <= maxLength else { return nil }
        return text
    }

    /// The host of a pasted URL (`https://www.example.com/a?b` gives
    /// `www.example.com`), to name in the error: the user said a page, and
    /// blocking the whole host is a decision for them.
    static func hostOfURL(_ text: String) -> String? {
        let afterScheme = text.firstRange(of: "://").map { text[$0.upperBound...] } ?? Substring(text)
        let authority = afterScheme.prefix { $0 != "/" && $0 != "?" && $0 != "#" }
        let host = authority.split(separator: "@").last.map { $0.prefix { $0 != ":" } } ?? ""
        guard host.contains("."), !host.hasPrefix("."), !host.contains(where: \.isWhitespace) else { return nil }
        return host.lowercased()
    }

    /// The name with its labels decoded to Unicode, for display.
    public var unicode: String {
        ascii.split(separator: ".").map { label in
            guard label.hasPrefix("xn--"), let scalars = Punycode.decode(label.dropFirst(4)) else { return String(label) }
            var decoded = ""
            decoded.unicodeScalars.append(contentsOf: scalars)
            return decoded
        }.joined(separator: ".")
    }

    /// Whether `other` is this name or one of its subdomains.
    public func covers(_ other: DomainName) -> Bool {
        other.ascii == ascii || other.ascii.hasSuffix("." + ascii)
    }

    public var description: String { ascii }

    private static func asciiLabel(_ label: Substring, in text: String) throws(GroupError) -> String {
        func invalid(_ reason: String) -> GroupError { .invalidTarget(text, reason: reason) }
        guard !label.isEmpty else { throw invalid("it has an empty label") }
        let lowered = label.lowercased().canonicallyComposed
        let ascii: String
        if lowered.unicodeScalars.allSatisfy(\.isASCII) {
            ascii = lowered
            if ascii.hasPrefix("xn--") {
                guard let scalars = Punycode.decode(ascii.dropFirst(4)), !scalars.allSatisfy(\.isASCII),
                      Punycode.encode(scalars) == String(ascii.dropFirst(4)) else {
                    throw invalid("'\(label)' is not a valid internationalised label")
                }
                try checkUnicodeLabel(scalars, label: label, text: text)
            } else {
                let chars = Array(ascii.utf8)
                if chars.count >= 4, chars[2] == UInt8(ascii: "-"), chars[3] == UInt8(ascii: "-") {
                    throw invalid("'\(label)' has '--' in the third and fourth positions, which is reserved")
                }
            }
        } else {
            let scalars = Array(lowered.unicodeScalars)
            try checkUnicodeLabel(scalars, label: label, text: text)
            guard let encoded = Punycode.encode(scalars) else { throw invalid("'\(label)' cannot be encoded") }
            ascii = "xn--" + encoded
        }
        guard ascii.utf8.allSatisfy({ isLetterDigitHyphen($0) }) else {
            throw invalid("'\(label)' may hold only letters, digits and '-'")
        }
        guard ascii.first != "-", ascii.last != "-" else {
            throw invalid("'\(label)' may not begin or end with '-'")
        }
        guard ascii.utf8.count <= maxLabelLength else {
            throw invalid("'\(label)' is longer than \(maxLabelLength) characters")
        }
        return ascii
    }

    /// The IDNA 2008 shape of a Unicode label: letters, marks, digits and
    /// hyphens, not starting with a combining mark.
    private static func checkUnicodeLabel(_ scalars: [Unicode.Scalar], label: Substring, text: String) throws(GroupError) {
        for scalar in scalars where !scalar.isASCII {
            switch scalar.properties.generalCategory {
            case .lowercaseLetter, .otherLetter, .modifierLetter, .titlecaseLetter, .uppercaseLetter,
                 .nonspacingMark, .spacingMark, .enclosingMark, .decimalNumber:
                continue
            default:
                throw .invalidTarget(text, reason: "'\(label)' contains '\(scalar)', which a domain name cannot hold")
            }
        }
        if let first = scalars.first, [.nonspacingMark, .spacingMark, .enclosingMark].contains(first.properties.generalCategory) {
            throw .invalidTarget(text, reason: "'\(label)' begins with a combining mark")
        }
    }

    private static func isLetterDigitHyphen(_ byte: UInt8) -> Bool {
        (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(byte)
            || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) || byte == UInt8(ascii: "-")
    }
}
