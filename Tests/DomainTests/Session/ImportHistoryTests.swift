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
    let sessions = InMemorySessionRepository()
    var useCase: ImportHistoryUseCase {
        let lookup = GroupRepositoryLookup(groups: groups), logger = Logger(label: "test", handler: InMemoryLogHandler())
        let events = SessionEventPublisher(tracker: InMemoryTracker(), hooks: InMemoryEventHooks(), notifier: nil, groups: lookup, logger: logger)
        let active = ActiveSession(sessions: sessions, groups: lookup, history: history, shields: FixedShieldDirectory(InMemoryShield()),
                                   clock: clock, devices: FixedDevices(this: "this-device"), events: events, logger: logger)
        return ImportHistoryUseCase(history: history, directory: GroupRepositoryImportDirectory(groups: groups, clock: clock), active: active)
    }

    func record(_ hour: Double, _ group: String, id: SessionID = SessionID(), line: Int = 0,
                start: Date? = nil, seconds: TimeInterval = 1_800) -> ImportBatch.Record {
        let start = start ?? Fixtures.instant(hour * 3_600)
        return ImportBatch.Record(session: Session(id: id, groupId: GroupID(), startedAt: start, plannedEnd: start + seconds,
                                                   endedAt: start + seconds, outcome: .completed, strict: false, breaks: [],
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

    @Test("sessions history cannot hold are problems, not lines: misread times, no length, over 24 hours")
    func implausible() async throws {
        let batch = ImportBatch(records: [
            record(0, "w", line: 1, start: Date(timeIntervalSince1970: 253_402_300_000)),   // the year 9999
            record(0, "w", line: 2, start: Date(timeIntervalSince1970: -3_600)),
            record(0, "w", line: 3, start: Date(timeIntervalSince1970: 1e300)),
            record(0, "w", line: 4, seconds: 0),
            record(0, "w", line: 5, seconds: -60),
            record(0, "w", line: 6, seconds: 27_777 * 3_600),
            record(0, "w", line: 7, seconds: 86_400),
        ])
        let summary = try await useCase.execute(from: FixedSource(batch: batch), path: "-")
        #expect(summary.imported == 1)
        #expect(summary.problems.map(\.line) == [1, 2, 3, 4, 5, 6])
        #expect(summary.problems[5].message.contains("27777 hours"))
        #expect(try await history.sessions(matching: .all).map(\.endedAt) == [Fixtures.instant(86_400)])
    }

    @Test("an entry carrying the id of the session in progress is refused: that session's own entry must not be skipped later")
    func idOfCurrentSession() async throws {
        let running = Fixtures.session(startingAt: 0)
        #expect(try await sessions.replace(nil, with: running))
        let summary = try await useCase.execute(from: FixedSource(batch: ImportBatch(records: [record(5, "w", id: running.id, line: 2)])), path: "-")
        #expect(summary.imported == 0 && summary.problems.map(\.line) == [2])
        #expect(try await history.sessions(matching: .all).isEmpty)
    }

    @Test("two imports of the same data at once: together they say each session was imported once")
    func concurrentImports() async throws {
        let batch = ImportBatch(records: (0..<50).map { record(Double($0), "work") })
        async let first = useCase.execute(from: FixedSource(batch: batch), path: "-")
        async let second = useCase.execute(from: FixedSource(batch: batch), path: "-")
        let (a, b) = try await (first, second)
        #expect(a.imported + b.imported == 50 && a.alreadyPresent + b.alreadyPresent == 50)
        #expect(try await groups.all().count == 1)
    }

    @Test("3,000 new groups are created in one step")
    func manyGroups() async throws {
        let batch = ImportBatch(records: (0..<3_000).map { record(Double($0), "project \($0)") })
        let summary = try await useCase.execute(from: FixedSource(batch: batch), path: "-")
        #expect(summary.imported == 3_000 && summary.groupsCreated.count == 3_000)
        #expect(try await groups.all().count == 3_000)
    }
}
