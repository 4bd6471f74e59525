import FoundationEssentials

/// The instants a session in history may have, however it enters it
/// (`track`, `edit`, `import`, a restored backup): one window, so what one
/// way accepts another never refuses, and a typed year 0001 never becomes a
/// report of 739,945 days.
public enum HistoryWindow {
    /// 1970-01-01 up to (not including) 2200-01-01, UTC.
    public static let instants = Date(timeIntervalSince1970: 0)..<Date(timeIntervalSince1970: 7_258_118_400)
    public static let years = "1970-2199"
    /// The rule in words, for an error.
    public static let description = "a session's times lie in the years \(years)"
}
