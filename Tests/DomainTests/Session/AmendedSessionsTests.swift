import Domain
import Foundation
import PortContracts
import Testing

/// Amendments of one ended session made on several devices merge per field
/// by the hybrid clock (docs/history.md, "Several devices"): every order a
/// sync tool delivers them in gives the same sessions, and no concurrent
/// edit of another field is lost.
@Suite struct AmendedSessionsTests {
    typealias Stamped = (amendment: HistoryAmendment, at: HybridTimestamp)

    static let base = Fixtures.endedSession(startingAt: 0)   // tags "deep work", "writing"; note "chapter 3"

    static func at(_ milliseconds: Int64, _ device: String, _ counter: UInt32 = 0) -> HybridTimestamp {
        HybridTimestamp(milliseconds: milliseconds, counter: counter, device: device)
    }

    /// `base` with some fields changed, and the edit that says which.
    static func edit(_ at: HybridTimestamp, tags: [String]? = nil, note: String?? = nil, shift: TimeInterval? = nil) -> Stamped {
        let before = base
        let start = shift.map { before.startedAt + $0 } ?? before.startedAt
        let after = Session(id: before.id, groupId: before.groupId, startedAt: start, plannedEnd: before.plannedEnd.map { $0 + (shift ?? 0) },
                            endedAt: before.endedAt, outcome: before.outcome, strict: before.strict,
                            breaks: shift == nil ? before.breaks : [], tags: tags ?? before.tags, note: note ?? before.note,
                            origin: before.origin, groupName: before.groupName)
        return (.edit(after, SessionChanges(from: before, to: after), at: after.startedAt), at)
    }

    static func merged(_ amendments: [Stamped]) -> [SessionID: Session] {
        AmendedSessions(amendments).resolved()
    }

    @Test func concurrentTagAndNoteEditsOnTwoDevicesBothHold() throws {
        let tag = Self.edit(Self.at(5_000, "a"), tags: Self.base.tags + ["x"])
        let note = Self.edit(Self.at(5_000, "b"), note: "y")
        for order in [[tag, note], [note, tag]] {
            let session = try #require(Self.merged(order)[Self.base.id])
            #expect(session.tags == ["deep work", "writing", "x"])
            #expect(session.note == "y")
            #expect(session.startedAt == Self.base.startedAt)
        }
    }

    /// Tags added, a tag removed, the note set twice, the times moved, a
    /// deletion, an edit the deletion had not seen, and an older retime's
    /// whole revision: all 40,320 orders give the same sessions.
    static let concurrent: [Stamped] = [
        edit(at(1_000, "a"), tags: base.tags + ["x"]),
        edit(at(1_000, "b"), note: "from b"),
        edit(at(1_200, "c"), shift: 30),
        edit(at(1_300, "a"), tags: ["deep work"]),
        edit(at(1_300, "c"), note: "from c"),
        (.delete(base.id, at: Fixtures.instant(0)), at(1_400, "b")),
        edit(at(1_500, "c"), tags: base.tags + ["y"]),
        (.revise(base, at: Fixtures.instant(0)), at(900, "d")),
    ]

    @Test func everyInterleavingOfConcurrentAmendmentsMergesToTheSameSessions() {
        let reference = Self.merged(Self.concurrent)
        var orders = 0
        for order in permutations(of: Array(Self.concurrent.indices)) {
            #expect(Self.merged(order.map { Self.concurrent[$0] }) == reference)
            orders += 1
        }
        #expect(orders == 40_320)
        // The edit after the deletion brings the session back, with every
        // field's latest value: c's times and note, a's removal of
        // "writing", c's "y"; a's "x" was made before the deletion but is
        // a field of the session it brings back.
        let session = reference[Self.base.id]
        #expect(session?.note == "from c")
        #expect(session?.startedAt == Self.base.startedAt + 30)
        #expect(Set(session?.tags ?? []) == ["deep work", "x", "y"])
    }

    @Test func aDeletionHidesEveryAmendmentOrderedBeforeIt() {
        let merged = Self.merged([Self.edit(Self.at(1_000, "a"), note: "n"), (.delete(Self.base.id, at: Fixtures.instant(0)), Self.at(2_000, "b"))])
        #expect(merged[Self.base.id] == nil)
        var amended = AmendedSessions([Self.edit(Self.at(1_000, "a"), note: "n")])
        amended.add(.delete(Self.base.id, at: Fixtures.instant(0)), at: Self.at(2_000, "b"))
        #expect(amended.apply(to: [Self.base], query: .all).isEmpty)
    }

    @Test func anEditOrderedAfterADeletionBringsTheSessionBackEvenIfItChangesNoTrackedField() {
        let deletion: Stamped = (.delete(Self.base.id, at: Fixtures.instant(0)), Self.at(1_000, "a"))
        let blank: Stamped = (.edit(Self.base, SessionChanges(), at: Fixtures.instant(0)), Self.at(2_000, "b"))
        #expect(Self.merged([deletion, blank])[Self.base.id] == Self.base)
        #expect(Self.merged([blank, deletion])[Self.base.id] == Self.base)
    }

    /// Device f's clock runs an hour fast; device s edits the note after it
    /// has seen f's edit. s's clock observed f's reading, so its edit orders
    /// after it and holds, though s's wall clock is an hour behind.
    @Test func aFastClockDoesNotWinALaterEdit() throws {
        let now = Date(timeIntervalSince1970: 1_800_000_000)
        var fast = HybridClock(device: "f"), slow = HybridClock(device: "s")
        let first = Self.edit(fast.tick(now: now + 3_600), note: "fast")
        slow.observe(first.at)
        let later = Self.edit(slow.tick(now: now), note: "later")
        #expect(Self.merged([first, later])[Self.base.id]?.note == "later")
        #expect(Self.merged([later, first])[Self.base.id]?.note == "later")
    }

    /// A line from an older retime is the whole session: it sets every field
    /// and the whole tag set, so a tag it lacks is gone, even one of the
    /// session's own line.
    @Test func aWholeRevisionSetsEveryFieldAndTheTagSet() throws {
        let revised = Session(id: Self.base.id, groupId: Self.base.groupId, startedAt: Self.base.startedAt, plannedEnd: Self.base.plannedEnd,
                              endedAt: Self.base.endedAt, outcome: .stopped, strict: false, breaks: Self.base.breaks, tags: ["z"],
                              note: nil, origin: .manual, groupName: "other")
        let tagged = Self.edit(Self.at(1_000, "a"), tags: Self.base.tags + ["x"])
        let whole: Stamped = (.revise(revised, at: Fixtures.instant(0)), Self.at(2_000, "b"))
        let session = try #require(Self.merged([whole, tagged])[Self.base.id])
        #expect(session == revised)
        let afterwards = try #require(Self.merged([whole, Self.edit(Self.at(3_000, "a"), note: "after")])[Self.base.id])
        #expect(afterwards.tags == ["z"])
        #expect(afterwards.note == "after")
        #expect(afterwards.outcome == .stopped)
    }
}
