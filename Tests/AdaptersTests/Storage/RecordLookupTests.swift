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

    @Test("a group is found by its name in any case beside damaged records; a damaged record is reported when it is read; one without its id (another device's changes to it, its making not yet here) is left out")
    func groups() async throws {
        let groups = StoreGroupRepository(store: store)
        for name in ["Work", "Play", "Ünïcode"] { try await groups.insert(Fixtures.group(name)) }
        // As hand edits may leave them: a record whose name reads but whose
        // targets do not, and one with no name at all.
        try store.update(StoreGroupRepository.suite) {
            $0["damaged"] = .object(["id": .string("damaged"), "name": .string("broken"), "targets": .int(3)])
        }
        #expect(try await groups.group(named: "Work")?.name.rawValue == "Work")
        #expect(try await groups.group(named: "WORK")?.name.rawValue == "Work")
        #expect(try await groups.group(named: "üNÏCODE")?.name.rawValue == "Ünïcode")
        await #expect(throws: StoreError.self) { try await groups.group(named: "BROKEN") }
        #expect(try await groups.group(named: "absent") == nil)
        await #expect(throws: GroupError.alreadyExists(name: "Play")) { try await groups.insert(Fixtures.group("PLAY")) }

        // Only another device's rename and target of a group whose making
        // has not arrived (or is in a log that does not read): not yet a group.
        try store.update(StoreGroupRepository.suite) { $0["partial"] = .object(["name": .string("Half"), "targets": .array([.string("x.com")])]) }
        #expect(try await groups.group(named: "Half") == nil)
        try store.update(StoreGroupRepository.suite) { $0["nameless"] = .object(["id": .string("nameless"), "targets": .array([])]) }
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

/// Two records holding one name: made on two devices before they saw each
/// other.
@Suite("A name two records hold")
struct NameHeldTwiceTests {
    let directory = TemporaryDirectory()
    var store: JSONFileStore { JSONFileStore(directory: directory.file("store")) }

    @Test("every lookup, in any case and in every process, finds the record with the smaller id; an exact spelling first")
    func theSmallerIDWins() async throws {
        let groups = StoreGroupRepository(store: store)
        let ids = (0..<6).map { _ in GroupID() }.sorted { $0.description < $1.description }
        // Inserted largest first, written straight to the suite as a merge leaves them.
        for (index, id) in ids.enumerated().reversed() {
            let name = index == 3 ? "Work" : "work"
            try store.update(StoreGroupRepository.suite) {
                $0[id.description] = try JSONValueCoding.encode(Group(id: id, name: try GroupName(name), createdAt: Date()), key: id.description)
            }
        }
        for _ in 0..<20 {
            // A fresh repository and store each time: a dictionary's order
            // changes from one process (and one instance) to the next.
            let fresh = StoreGroupRepository(store: JSONFileStore(directory: directory.file("store")))
            #expect(try await fresh.group(named: "work")?.id == ids[0])
            #expect(try await fresh.id(named: "WORK") == ids[0])
            #expect(try await fresh.group(named: "Work")?.id == ids[3], "the exact spelling")
        }
        #expect(NameRules.heldTwice(try await groups.names().values).map { "\($0.name) \($0.count)" } == ["Work 6"])
        #expect(NameRules.heldTwice(["a", "b", "B", "c", "A", "a"]).map { "\($0.name) \($0.count)" } == ["A 3", "B 2"])
        #expect(NameRules.heldTwice(["a", "b"]).isEmpty)
    }
}
