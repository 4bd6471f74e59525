import Adapters
import Domain
import Foundation
import PortContracts
import Testing

/// `undo` on the manual clock: each history command's change reverted, one
/// further back each time, and nothing else touched.
@Suite("Undoing changes to history")
struct UndoHistoryTests {
    let world: SessionWorld
    let journal = InMemoryHistoryJournal()
    let lock = InMemoryDataLock()

    init() async throws { world = try await SessionWorld() }

    var groups: GroupRepositoryLookup { GroupRepositoryLookup(groups: world.groups) }
    var track: TrackSessionUseCase {
        TrackSessionUseCase(history: world.history, groups: groups, clock: world.clock, journal: journal, dataLock: lock)
    }
    var edit: EditSessionUseCase {
        EditSessionUseCase(history: world.history, groups: groups, clock: world.clock, journal: journal, dataLock: lock)
    }
    var delete: DeleteSessionUseCase { DeleteSessionUseCase(history: world.history, clock: world.clock, journal: journal, dataLock: lock) }
    var undo: UndoHistoryChangeUseCase { UndoHistoryChangeUseCase(history: world.history, journal: journal, dataLock: lock, clock: world.clock) }

    func ago(_ hours: Double) -> Date { world.clock.now().addingTimeInterval(-hours * 3_600) }

    @discardableResult
    func tracked(_ hours: Double = 3, tags: [String] = []) async throws -> Session {
        let session = try await track.execute(group: "work", from: ago(hours), to: ago(hours - 1), tags: tags, note: nil)
        world.clock.advance(by: 1)
        return session
    }

    @Test("undoing a track removes the session; nothing left is nothingToUndo, and history stays empty")
    func undoTrack() async throws {
        let session = try await tracked()
        let outcome = try await undo.execute()
        #expect(outcome.change.kind == .track && outcome.restored.map(\.id) == [session.id] && !outcome.dryRun)
        #expect(try await world.ended == [])
        await #expect(throws: SessionError.nothingToUndo) { try await undo.execute() }
        #expect(try await world.ended == [])
    }

    @Test("two edits undone in a row walk back one at a time, then the track")
    func walksBack() async throws {
        let original = try await tracked()
        let first = try await edit.execute(.recent(1), changes: .init(addTags: ["deep"]))
        world.clock.advance(by: 1)
        _ = try await edit.execute(.recent(1), changes: .init(from: ago(2.5), note: "moved"))
        world.clock.advance(by: 1)
        let second = try await undo.execute()
        #expect(second.change.kind == .edit && second.restored.first?.before == first)
        #expect(try await world.ended == [first])
        world.clock.advance(by: 1)
        _ = try await undo.execute()
        #expect(try await world.ended == [original])
        _ = try await undo.execute()
        #expect(try await world.ended == [])
    }

    @Test("undoing a delete brings the session back as it was, in every field")
    func undoDelete() async throws {
        let original = try await tracked(5, tags: ["a", "b"])
        _ = try await delete.execute(.id(original.id))
        #expect(try await world.ended.isEmpty)
        world.clock.advance(by: 1)
        let outcome = try await undo.execute()
        #expect(outcome.change.kind == .delete)
        #expect(try await world.ended == [original])
    }

    @Test("an import run is undone whole: what it added is gone, what it updated is back")
    func undoImport() async throws {
        let importer = ImportHistoryUseCase(history: world.history, directory: GroupRepositoryImportDirectory(groups: world.groups, clock: world.clock),
                                            active: world.active, clock: world.clock, journal: journal, dataLock: lock)
        let base = world.clock.now()
        func frame(_ id: SessionID, hours: Double, tags: [String]) -> ImportBatch.Record {
            let start = base.addingTimeInterval(-hours * 3_600)
            return ImportBatch.Record(session: Session(id: id, groupId: GroupID(), startedAt: start, plannedEnd: start + 1_800,
                                                endedAt: start + 1_800, outcome: .completed, strict: false, breaks: [], tags: tags,
                                                note: nil, origin: .imported("watson")), groupName: "work")
        }
        let (one, two, three) = (SessionID(), SessionID(), SessionID())
        _ = try await importer.execute(from: FixedSource(batch: ImportBatch(records: [frame(one, hours: 5, tags: []), frame(two, hours: 4, tags: [])])),
                                       path: "-", tool: "watson")
        let first = try await world.ended
        world.clock.advance(by: 60)
        let rerun = ImportBatch(records: [frame(one, hours: 5, tags: ["extra"]), frame(two, hours: 4, tags: []), frame(three, hours: 3, tags: [])])
        let summary = try await importer.execute(from: FixedSource(batch: rerun), path: "-", tool: "watson")
        #expect(summary.imported == 1 && summary.updated == 1)
        world.clock.advance(by: 60)
        let outcome = try await undo.execute()
        #expect(outcome.change.kind == .import && outcome.change.source == "watson")
        #expect(outcome.restored.filter { $0.before == nil }.map(\.id) == [three])
        #expect(outcome.restored.compactMap(\.before).map(\.id) == [one])
        #expect(try await world.ended == first)
        _ = try await undo.execute()
        #expect(try await world.ended == [])
    }

    @Test("a dry run says what would be undone and changes nothing, not even which change is next")
    func dryRun() async throws {
        let session = try await tracked()
        let told = try await undo.execute(dryRun: true)
        #expect(told.dryRun && told.change.kind == .track && told.restored.map(\.id) == [session.id])
        #expect(try await world.ended == [session])
        #expect(try await journal.pending().count == 1)
        #expect(try await undo.execute().change.id == told.change.id)
    }

    @Test("a clock set back, or reading one instant, still undoes change after change: each undo's amendment is the latest")
    func clockSetBack() async throws {
        let original = try await tracked()
        let first = try await edit.execute(.recent(1), changes: .init(addTags: ["deep"]))
        world.clock.advance(by: 60)
        _ = try await edit.execute(.recent(1), changes: .init(addTags: ["deeper"]))
        world.clock.setWallClock(to: world.clock.now().addingTimeInterval(-86_400))
        _ = try await undo.execute()
        #expect(try await world.ended == [first])
        _ = try await undo.execute()
        #expect(try await world.ended == [original])
        _ = try await undo.execute()
        #expect(try await world.ended == [])
    }

    @Test("a session changed since on another device is left as that device made it, and counted")
    func changedElsewhere() async throws {
        let original = try await tracked()
        let mine = try await edit.execute(.recent(1), changes: .init(addTags: ["mine"]))
        world.clock.advance(by: 60)
        let theirs = Session(id: mine.id, groupId: mine.groupId, startedAt: mine.startedAt, plannedEnd: mine.plannedEnd, endedAt: mine.endedAt,
                             outcome: mine.outcome, strict: mine.strict, breaks: mine.breaks, tags: ["theirs"], note: nil, origin: mine.origin,
                             groupName: mine.groupName)
        try await world.history.amend(.revise(theirs, at: world.clock.now()))
        let outcome = try await undo.execute()
        #expect(outcome.restored.isEmpty && outcome.changedSince.map(\.id) == [original.id])
        #expect(try await world.ended == [theirs])
    }

    @Test("a change journaled but never written (killed in between) is passed over: undo reverts the one before")
    func journaledOnly() async throws {
        let kept = try await tracked(5)
        let undone = try await tracked(3)
        let never = Session(groupId: world.work.id, startedAt: ago(2), plannedEnd: ago(1), groupName: "work").ending(at: ago(1), outcome: .completed)
        try await journal.record(HistoryChange(kind: .track, at: world.clock.now(), entries: [.init(before: nil, after: never)]))
        let outcome = try await undo.execute()
        #expect(outcome.restored.map(\.id) == [undone.id])
        #expect(try await world.ended == [kept])
        #expect(try await journal.pending().count == 1)
    }

    @Test("undo never touches the session in progress, strict or not: its block stays up")
    func runningSessionUntouched() async throws {
        _ = try await tracked()
        let running = try await world.startWork(.duration(3_600), strict: true)
        _ = try await undo.execute()
        #expect(try await world.sessions.current() == running)
        #expect(try await world.shieldState == ShieldState(session: running.id, targets: world.work.targets))
        await #expect(throws: SessionError.nothingToUndo) { try await undo.execute() }
        #expect(try await world.sessions.current() == running)
    }
}
