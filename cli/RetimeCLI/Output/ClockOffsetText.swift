import FoundationEssentials

/// How far another device's clock is from this machine's, in words a
/// person reads at a glance: "about 1h", "about 25m", "about 2d 3h".
enum ClockOffsetText {
    /// The size of an offset, rounded to what matters.
    static func about(_ seconds: TimeInterval) -> String {
        let size = abs(seconds)
        if size < 3_600 { return "about \(max(1, Int((size / 60).rounded())))m" }
        if size < 86_400 {
            let hours = Int(size / 3_600), minutes = Int((size.truncatingRemainder(dividingBy: 3_600) / 60).rounded())
            return minutes < 5 || minutes > 55 ? "about \(Int((size / 3_600).rounded()))h" : "about \(hours)h \(minutes)m"
        }
        let days = Int(size / 86_400), hours = Int((size.truncatingRemainder(dividingBy: 86_400) / 3_600).rounded())
        return hours == 0 ? "about \(days)d" : "about \(days)d \(hours)h"
    }

    /// `offset`: the other device's clock minus this one's. "its clock is
    /// about 1h ahead" (or behind).
    static func itsClock(_ offset: TimeInterval) -> String {
        "its clock is \(about(offset)) \(offset > 0 ? "ahead" : "behind")"
    }

    /// The same seen from this machine: "this machine's clock is about 1h
    /// ahead" when the other's is behind.
    static func thisClock(_ offset: TimeInterval) -> String {
        "this machine's clock is \(about(offset)) \(offset < 0 ? "ahead" : "behind")"
    }
}
