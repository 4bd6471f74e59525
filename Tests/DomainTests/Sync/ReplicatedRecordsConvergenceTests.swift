import Domain
import Testing

/// Devices apply each other's changes in whatever order a sync tool copies
/// them: every order must give the same records, and no edit is lost.
@Suite struct ReplicatedRecordsConvergenceTests {
    typealias Change = RecordChange<String>

    static func at(_ milliseconds: Int64, _ device: String, _ counter: UInt32 = 0) -> HybridTimestamp {
        HybridTimestamp(milliseconds: milliseconds, counter: counter, device: device)
    }

    /// A group made on device a, then, concurrently: a rename on b, a
    /// target on c, a second target and the removal of the first on a, a
    /// delete on b that the later edits on c did not see, and a note field
    /// set on two devices in the same millisecond.
    static let concurrent: [Change] = [
        Change(at: at(1_000, "a"), record: "g", kind: .set(field: "name", value: "work")),
        Change(at: at(1_000, "a", 1), record: "g", kind: .add(field: "targets", element: "news.com")),
        Change(at: at(2_000, "b"), record: "g", kind: .set(field: "name", value: "deep")),
        Change(at: at(2_000, "c"), record: "g", kind: .add(field: "targets", element: "slack.com")),
        Change(at: at(2_500, "a"), record: "g", kind: .remove(field: "targets", element: "news.com")),
        Change(at: at(3_000, "b"), record: "g", kind: .set(field: "note", value: "from b")),
        Change(at: at(3_000, "c"), record: "g", kind: .set(field: "note", value: "from c")),
        Change(at: at(2_600, "b"), record: "h", kind: .set(field: "name", value: "games")),
        Change(at: at(2_700, "b"), record: "h", kind: .delete),
    ]

    static func state(_ changes: some Sequence<Change>) -> ReplicatedRecords<String> {
        var records = ReplicatedRecords<String>()
        records.apply(changes)
        return records
    }

    @Test func everyInterleavingGivesTheSameRecords() {
        let reference = Self.state(Self.concurrent)
        var orders = 0
        for order in permutations(of: Array(Self.concurrent.indices)) {
            #expect(Self.state(order.map { Self.concurrent[$0] }) == reference)
            orders += 1
        }
        #expect(orders == 362_880)
    }

    @Test func repeatsChangeNothing() {
        let reference = Self.state(Self.concurrent)
        #expect(Self.state(Self.concurrent + Self.concurrent.reversed()) == reference)
    }

    @Test func concurrentEditsOfDifferentFieldsBothHold() throws {
        let group = try #require(Self.state(Self.concurrent).record("g"))
        #expect(group.fields["name"] == "deep")
        #expect(group.sets["targets"] == ["slack.com"])
        // Same millisecond, same counter: the device id decides, the same way everywhere.
        #expect(group.fields["note"] == "from c")
        #expect(Self.state(Self.concurrent).record("h") == nil)
    }

    @Test func anEditTheDeleteDidNotSeeBringsTheRecordBackWhole() throws {
        var records = Self.state([
            Change(at: Self.at(1_000, "a"), record: "g", kind: .set(field: "name", value: "work")),
            Change(at: Self.at(1_000, "a", 1), record: "g", kind: .add(field: "targets", element: "news.com")),
            Change(at: Self.at(2_000, "a"), record: "g", kind: .delete),
        ])
        #expect(records.record("g") == nil)
        #expect(records.keys.isEmpty)
        records.apply(Change(at: Self.at(2_001, "b"), record: "g", kind: .add(field: "targets", element: "slack.com")))
        let group = try #require(records.record("g"))
        #expect(group.fields["name"] == "work")
        #expect(group.sets["targets"] == ["news.com", "slack.com"])
        #expect(records.keys == ["g"])
    }

    @Test func aDeleteHidesTheEditsOrderedBeforeIt() {
        let records = Self.state([
            Change(at: Self.at(1_000, "a"), record: "g", kind: .set(field: "name", value: "work")),
            Change(at: Self.at(1_500, "b"), record: "g", kind: .set(field: "name", value: "deep")),
            Change(at: Self.at(2_000, "a"), record: "g", kind: .delete),
        ])
        #expect(records.record("g") == nil)
        #expect(records.lastChange(of: "g") == Self.at(2_000, "a"))
    }

    @Test func aRemovedFieldIsGoneUntilSetAgain() throws {
        var records = Self.state([
            Change(at: Self.at(1_000, "a"), record: "k", kind: .set(field: "value", value: "on")),
            Change(at: Self.at(1_100, "a"), record: "k", kind: .set(field: "extra", value: "x")),
            Change(at: Self.at(1_200, "b"), record: "k", kind: .set(field: "extra", value: nil)),
        ])
        #expect(try #require(records.record("k")).fields == ["value": "on"])
        records.apply(Change(at: Self.at(1_150, "c"), record: "k", kind: .set(field: "extra", value: "late")))
        #expect(try #require(records.record("k")).fields == ["value": "on"])
    }
}

/// Every ordering of `items` (Heap's algorithm).
func permutations<T>(of items: [T]) -> [[T]] {
    var result: [[T]] = []
    var items = items
    var counters = Array(repeating: 0, count: items.count)
    result.append(items)
    var index = 0
    while index < items.count {
        if counters[index] < index {
            items.swapAt(index % 2 == 0 ? 0 : counters[index], index)
            result.append(items)
            counters[index] += 1
            index = 0
        } else {
            counters[index] = 0
            index += 1
        }
    }
    return result
}
