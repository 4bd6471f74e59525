import Domain
import Synchronization

/// Summaries of history's months held in memory, for tests and for a
/// process that reports more than once.
public final class InMemoryHistorySummaryStore: HistorySummaryStore {
    private let kept = Mutex(HistorySummaries())
    /// How many times `keep` was called: a test tells a report that made
    /// summaries from one that took them all.
    public var keeps: Int { counted.withLock { $0 } }
    private let counted = Mutex(0)

    public init() {}

    public func summaries() async -> HistorySummaries {
        kept.withLock { $0 }
    }

    public func keep(_ summaries: HistorySummaries) async {
        kept.withLock { $0 = summaries }
        counted.withLock { $0 += 1 }
    }
}
