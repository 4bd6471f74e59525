import Domain
import FoundationEssentials
#if canImport(Glibc)
import Glibc
#endif

/// Reads a DURATION as the CLI contract writes it: `90s`, `25m`, `1h30m`,
/// `2h`, `1h30m15s`, or ISO-8601 `PT25M` / `PT1H30M` / `PT90S`.
enum DurationValue {
    static func parse(_ text: String, option: String) throws(UsageError) -> TimeInterval {
        let trimmed = text.trimmedSpaces
        let upper = trimmed.uppercased()
        let body = upper.hasPrefix("PT") ? String(upper.dropFirst(2)) : upper
        guard !body.isEmpty, let seconds = sum(of: body) else {
            throw UsageError(.invalidValue, "invalid duration '\(text)' for --\(option)",
                             hint: "write it like 90s, 25m, 1h30m or PT25M")
        }
        return seconds
    }

    /// `1H30M15S` -> 5415; units in descending order, each at most once.
    private static func sum(of body: String) -> TimeInterval? {
        var total: TimeInterval = 0
        var number = ""
        var remaining: [Character] = ["H", "M", "S"]
        for character in body {
            if character.isASCII && (character.isNumber || character == ".") {
                number.append(character)
                continue
            }
            guard let position = remaining.firstIndex(of: character), let value = Double(number), value.isFinite,
                  number.count <= 9 else { return nil }
            total += value * (character == "H" ? 3_600 : character == "M" ? 60 : 1)
            remaining.removeFirst(position + 1)
            number = ""
        }
        return number.isEmpty ? total : nil
    }

    /// `25m`, `1h 30m`, `45s`: a duration as people read it.
    static func format(_ seconds: TimeInterval) -> String {
        // To the nearest second: 39.997 s of focus is 40s, as it was meant.
        let total = seconds.isFinite ? Int(max(0, min(seconds, 1e12)).rounded()) : 0
        let hours = total / 3_600, minutes = total / 60 % 60, secs = total % 60
        var parts: [String] = []
        if hours > 0 { parts.append("\(hours)h") }
        if minutes > 0 { parts.append("\(minutes)m") }
        if secs > 0 || parts.isEmpty { parts.append("\(secs)s") }
        return parts.joined(separator: " ")
    }
}
