/// "Did you mean": a candidate the word begins (`stat` is the start of
/// `status`, whatever `start`'s distance), else the closest by edit
/// distance, if close enough to be a typo rather than another word.
enum Suggestion {
    static func closest(to word: String, among candidates: [String]) -> String? {
        let lowered = word.lowercased()
        if lowered.count >= 2, let begun = candidates.filter({ $0.lowercased().hasPrefix(lowered) }).min(by: { $0.count < $1.count }) {
            return begun
        }
        let scored = candidates.map { ($0, distance(word.lowercased(), $0.lowercased())) }
        guard let best = scored.min(by: { $0.1 < $1.1 }) else { return nil }
        let allowed = max(1, min(3, word.count / 3))
        return best.1 <= allowed || best.0.hasPrefix(word) && word.count >= 2 ? best.0 : nil
    }

    /// Levenshtein distance, with a transposition counted as one edit.
    static func distance(_ a: String, _ b: String) -> Int {
        let a = Array(a.prefix(256)), b = Array(b.prefix(256))
        if a.isEmpty { return b.count }
        if b.isEmpty { return a.count }
        var previous2 = [Int](repeating: 0, count: b.count + 1)
        var previous = Array(0...b.count)
        var current = [Int](repeating: 0, count: b.count + 1)
        for i in 1...a.count {
            current[0] = i
            for j in 1...b.count {
                let cost = a[i - 1] == b[j - 1] ? 0 : 1
                current[j] = min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + cost)
                if i > 1, j > 1, a[i - 1] == b[j - 2], a[i - 2] == b[j - 1] {
                    current[j] = min(current[j], previous2[j - 2] + 1)
                }
            }
            (previous2, previous, current) = (previous, current, previous2)
        }
        return previous[b.count]
    }
}
