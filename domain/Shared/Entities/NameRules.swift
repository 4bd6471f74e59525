import FoundationEssentials

/// The rules every user-given name follows (groups, schedules): 1-64
/// characters, no control characters, line separators or text-direction
/// controls, no `/`, surrounding whitespace
/// dropped; two names are the same when they match case-insensitively.
public enum NameRules {
    public static let maxLength = 64

    /// The name as it is kept, or why `text` is not a name.
    public static func check(_ text: String) -> Result<String, NameProblem> {
        let trimmed = text.trimmed
        if trimmed.isEmpty { return .failure(NameProblem("it is empty")) }
        if trimmed.count > maxLength { return .failure(NameProblem("it is longer than \(maxLength) characters")) }
        if trimmed.containsControlCharacter { return .failure(NameProblem("it contains a control character")) }
        if trimmed.containsLayoutControl {
            return .failure(NameProblem("it contains a line separator or a text-direction control"))
        }
        if trimmed.contains("/") { return .failure(NameProblem("it contains '/'")) }
        return .success(trimmed)
    }

    /// The form in which names are compared: case-folded, canonically composed.
    public static func comparisonKey(_ text: String) -> String {
        // Most names are printable ASCII with no space at either end: their
        // key is their lower case, without Foundation's folding (a few µs a
        // name, which a check across 1,000 names multiplied).
        let utf8 = text.utf8
        if let first = utf8.first, let last = utf8.last, first != 0x20, last != 0x20,
           utf8.allSatisfy({ $0 >= 0x20 && $0 < 0x7F }) {
            return String(decoding: utf8.map { $0 >= 0x41 && $0 <= 0x5A ? $0 + 0x20 : $0 }, as: UTF8.self)
        }
        return text.trimmed.caseFolded
    }

    /// The names held by more than one of `names` (as names compare), each
    /// once with how many hold it, spelled as its smallest spelling (the
    /// same whatever order `names` come in), ordered as names are: records
    /// made under one name on two devices before they saw each other, which
    /// `doctor` points out.
    public static func heldTwice(_ names: some Sequence<String>) -> [(name: String, count: Int)] {
        var seen: [String: (name: String, count: Int)] = [:]
        for name in names {
            let key = comparisonKey(name)
            let held = seen[key]
            seen[key] = (min(held?.name ?? name, name), (held?.count ?? 0) + 1)
        }
        return seen.filter { $0.value.count > 1 }.sorted { $0.key < $1.key }.map(\.value)
    }
}

/// Why a text is not a valid name.
public struct NameProblem: Error, Equatable, CustomStringConvertible {
    public var description: String
    init(_ description: String) { self.description = description }
}
