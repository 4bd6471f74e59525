import Adapters
import Domain
import Foundation
import PortContracts
import Testing

/// Lookups by name read only the records' names, then decode the one found.
@Suite("Groups and schedules found by name")
struct RecordLookupTests {
    let directory = TemporaryDirectory()
    var store: JSONFileStore { JSONFileStore(directory: directory.file("store")) }

    @Test("a group is found by its name in any case beside damaged records; a damaged record is reported when it is read")
    func groups() async throws {
        let groups = StoreGroupRepository(store: store)
        for name in ["Work", "Play", "Ünïcode"] { try await groups.insert(Fixtures.group(name)) }
        // As hand edits may leave them: a record whose name reads but whose
        // targets do not, and one with no name at all.
        try store.update(StoreGroupRepository.suite) {
            $0["damaged"] = .object(["name": .string("broken"), "targets": .int(3)])
        }
        #expect(try await groups.group(named: "Work")?.name.rawValue == "Work")
        #expect(try await groups.group(named: "WORK")?.name.rawValue == "Work")
        #expect(try await groups.group(named: "üNÏCODE")?.name.rawValue == "Ünïcode")
        await #expect(throws: StoreError.self) { try await groups.group(named: "BROKEN") }
        #expect(try await groups.group(named: "absent") == nil)
        await #expect(throws: GroupError.alreadyExists(name: "Play")) { try await groups.insert(Fixtures.group("PLAY")) }

        try store.update(StoreGroupRepository.suite) { $0["nameless"] = .object(["targets": .array([])]) }
        #expect(try await groups.group(named: "Play")?.name.rawValue == "Play")
        await #expect(throws: StoreError.self) { try await groups.group(named: "absent") }
        await #expect(throws: StoreError.self) { try await groups.all() }
    }

    @Test("a schedule's name is held whatever its case; renaming to a free name works, to a held one does not")
    func schedules() async throws {
        let schedules = StoreScheduleRepository(store: store)
        try await schedules.insert(Fixtures.schedule("Mornings"))
        try await schedules.insert(Fixtures.schedule("Evenings"))
        await #expect(throws: ScheduleError.alreadyExists(name: "Mornings")) { try await schedules.insert(Fixtures.schedule("mornings")) }
        var evenings = try #require(try await schedules.schedule(named: "EVENINGS"))
        evenings.name = "MORNINGS"
        await #expect(throws: ScheduleError.alreadyExists(name: "Mornings")) { try await schedules.update(evenings) }
        evenings.name = "Nights"
        try await schedules.update(evenings)
        #expect(try await schedules.schedule(named: "nights")?.id == evenings.id)
        #expect(try await schedules.schedule(named: "Evenings") == nil)
    }
}
