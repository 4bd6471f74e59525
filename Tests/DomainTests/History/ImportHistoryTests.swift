import Adapters
import Domain
import Foundation
import PortContracts
import Testing

/// A source that hands back a fixed batch.
struct FixedSource: HistoryImportSource {
    let batch: ImportBatch
    func read(_ path: String) async throws -> ImportBatch { batch }
}

@Suite("Importing history")
struct ImportHistoryTests {
    let history = InMemorySessionHistory()
    let groups = InMemoryGroupRepository()
    let clock = ManualClock()
    var useCase: ImportHistoryUseCase {
        ImportHistoryUseCase(history: history, directory: GroupRepositoryImportDirectory(groups: groups, clock: clock))
    }

    func record(_ hour: Double, _ group: String, id: SessionID = SessionID(), line: Int = 0) -> ImportBatch.Record {
        let start = Fixtures.instant(hour * 3_600)
        return ImportBatch.Record(session: Session(id: id, groupId: GroupID(), startedAt: start, plannedEnd: start + 1_800,
                                                   endedAt: start + 1_800, outcome: .completed, strict: false, breaks: [],
                                                   tags: [], note: nil, origin: .imported("test")), groupName: group, line: line)
    }

    @Test("sessions are filed under their groups by name, created once when missing, found case-insensitively")
    func groupsByName() async throws {
        try await groups.insert(Fixtures.group("Writing"))
        let batch = ImportBatch(records: [record(0, "writing"), record(1, "Reading"), record(2, "reading"), record(3, "WRITING")])
        let summary = try await useCase.execute(from: FixedSource(batch: batch), path: "-")
        #expect(summary.imported == 4 && summary.groupsCreated == ["Reading"])
        let all = try await groups.all()
        #expect(all.map(\.name.rawValue).sorted() == ["Reading", "Writing"])
        #expect(all.first { $0.name.rawValue == "Reading" }?.targets.isEmpty == true)
        let byGroup = Dictionary(grouping: try await history.sessions(matching: .all), by: \.groupId).mapValues(\.count)
        #expect(byGroup == Dictionary(uniqueKeysWithValues: all.map { ($0.id, 2) }))
    }

    @Test("importing the same data twice adds nothing, and history already there is untouched")
    func idempotent() async throws {
        let mine = Fixtures.endedSession(startingAt: -86_400)
        try await history.append(mine)
        let batch = ImportBatch(records: (0..<5).map { record(Double($0), "work") })
        #expect(try await useCase.execute(from: FixedSource(batch: batch), path: "-").imported == 5)
        let again = try await useCase.execute(from: FixedSource(batch: batch), path: "-")
        #expect(again.imported == 0 && again.alreadyPresent == 5 && again.groupsCreated.isEmpty)
        let all = try await history.sessions(matching: .all)
        #expect(all.count == 6 && all.contains(mine))
    }

    @Test("a session repeated within one batch is imported once")
    func repeatedInBatch() async throws {
        let id = SessionID()
        let summary = try await useCase.execute(from: FixedSource(batch: ImportBatch(records: [record(0, "a", id: id), record(0, "a", id: id)])), path: "-")
        #expect(summary.imported == 1 && summary.alreadyPresent == 1)
    }

    @Test("a name that cannot be a group is a problem with its entry's line; the rest go in; problems come in order")
    func badGroupName() async throws {
        let batch = ImportBatch(records: [record(0, "ok", line: 3), record(1, "a/b", line: 5), record(2, "ok", line: 7)],
                                problems: [.init(line: 9, message: "late"), .init(line: 1, message: "early")])
        let summary = try await useCase.execute(from: FixedSource(batch: batch), path: "-")
        #expect(summary.imported == 2)
        #expect(summary.problems.map(\.line) == [1, 5, 9])
        #expect(summary.problems[1].message.contains("a/b"))
    }
}
