/// What a `HistorySummaryStore` keeps: each month's summary, and which of
/// them hold a session another of them holds too.
public struct HistorySummaries: Sendable, Equatable {
    /// By month (`MonthSummary.key(of:)`).
    public var months: [String: MonthSummary]
    /// The months that hold a session (by its id's hash) another of
    /// `months` holds too, worked out over all of them whenever they are
    /// kept: a report over devices that keep each id once then need not
    /// look at every id of every month to know that none is held twice.
    public var sharing: Set<String>

    /// Nothing kept.
    public init() {
        months = [:]
        sharing = []
    }

    /// As a store read them back.
    public init(months: [String: MonthSummary], sharing: Set<String>) {
        self.months = months
        self.sharing = sharing
    }

    /// `months`, with the ones sharing a session worked out.
    public init(months: [String: MonthSummary]) {
        self.months = months
        var owners = FingerprintOwners(capacity: months.values.reduce(0) { $0 + $1.fingerprints.count })
        let keys = months.keys.sorted()
        var sharing = Set<String>()
        for (index, key) in keys.enumerated() {
            for fingerprint in months[key]!.fingerprints {
                if let other = owners.insert(fingerprint, owner: Int32(index)) { sharing.formUnion([key, keys[Int(other)]]) }
            }
        }
        self.sharing = sharing
    }
}
