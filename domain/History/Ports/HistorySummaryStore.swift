/// Where reports keep their summaries of months of history
/// (`MonthSummary`) between runs: a cache beside the history, never the
/// data. A report checks every summary it takes against the versions of
/// the month's segments and the time zone's days, so a store may lose
/// summaries, keep stale ones or return none, and the report is the same,
/// only slower. What it must never return is a summary other than one it
/// was given, whatever befell its files.
///
/// The contract every adapter keeps is `HistorySummaryStoreContract`.
public protocol HistorySummaryStore: Sendable {
    /// The summaries kept; none when none are, or when what is kept cannot
    /// be read whole.
    func summaries() async -> HistorySummaries
    /// Keeps `summaries` in place of what was kept. Failing to is not an
    /// error: the next report makes them again.
    func keep(_ summaries: HistorySummaries) async
}
