@testable import RetimeCLI
import Adapters
import Domain
import Foundation
import Testing

/// semantics.md, "Devices you can trust": each defect issue 43 found, as a
/// scenario of two devices whose steps are written out (`FleetScenario`),
/// besides the seeded runs that found them (`FleetSimulationTests`).
@Suite("Devices you can trust: issue 43's defects, pinned")
struct TrustedDevicesTests {
    @Test("a machine whose clock runs an hour fast never ends another device's strict session early: it ends at its end on that clock")
    func fastClockEndsNothingElsewhere() async throws {
        let fleet = try await FleetScenario(skews: [0, 3_600])
        let session = try await fleet.start(on: 0, for: 3_000, strict: true)
        fleet.advance(by: 2)
        try fleet.sync()
        let shown = try await fleet.status(on: 1)
        #expect(shown?.session.id == session.id, "B shows A's session, though its own clock reads past its end")
        #expect(shown?.clockOffset.map { abs($0 + 3_600) < 60 } == true, "B knows A's clock is an hour behind its own: \(String(describing: shown?.clockOffset))")
        #expect(try await fleet.block(on: 1) == session.id, "B's block is up")

        fleet.advance(by: 2_900)
        try fleet.sync()
        #expect(try await fleet.status(on: 1)?.session.id == session.id, "still running on B, 100 s before its end")
        #expect(try await fleet.history(on: 1)[session.id.description] == nil, "B never completed it early")
        #expect(!fleet.shieldCalls(on: 1).contains(.lower(session.id)), "B never lowered its block early")

        fleet.advance(by: 200)
        #expect(try await fleet.status(on: 1) == nil, "past its end on A's clock, B ends it")
        let ended = try #require(try await fleet.history(on: 1)[session.id.description])
        #expect(ended.outcome == .completed && ended.endedAt == session.plannedEnd, "completed at its planned end: \(ended)")
        #expect(try await fleet.block(on: 1) == nil)
    }

    @Test("a session started on a machine whose clock is an hour ahead stops on the other: no 'end before start'")
    func wrongClockSessionStopsAnywhere() async throws {
        let fleet = try await FleetScenario(skews: [0, 3_600])
        let session = try await fleet.start(on: 1, for: 1_800)
        fleet.advance(by: 60)
        try fleet.sync()
        let stopped = try await fleet.on(0) { try await $0.resolve(StopSessionUseCase.self).execute() }.session
        #expect(stopped.id == session.id)
        let ended = try #require(try await fleet.history(on: 0)[session.id.description])
        #expect(ended.outcome == .stopped && ended.endedAt! >= ended.startedAt, "\(ended)")
        try fleet.sync()
        #expect(try await fleet.status(on: 1) == nil, "stopped on B too")
        #expect(try await fleet.history(on: 1)[session.id.description]?.outcome == .stopped)
    }

    @Test("a stamp from year 4821 in another device's log is merged, and never becomes this device's clock: only an edit of that record orders after it")
    func farStampIsNotAdopted() async throws {
        let fleet = try await FleetScenario(skews: [0, 0])
        let group = try #require(try await fleet.on(0) { try await $0.resolve((any GroupRepository).self).group(named: "work") })
        let log = fleet.devices[0].data + "/devices/" + fleet.devices[0].id + "/changes/groups.jsonl"
        let line = #"{"at":"90000000000000-0-\#(fleet.devices[0].id)","changes":[{"add":"targets","value":"far.test"}],"key":"\#(group.id)"}"# + "\n"
        let handle = try #require(FileHandle(forWritingAtPath: log))
        handle.seekToEndOfFile()
        handle.write(Data(line.utf8))
        handle.closeFile()
        try fleet.sync()
        // An edit of that record must order after it (else it would never
        // win); an edit of any other record is stamped by B's own clock.
        _ = try await fleet.on(1) { try await $0.resolve(BlockTargetsUseCase.self).execute(group: "work", targets: ["near.test"]) }
        _ = try await fleet.on(1) { try await $0.resolve(CreateGroupUseCase.self).execute(name: "other", targets: ["o.test"]) }
        let own = try String(contentsOfFile: fleet.devices[1].data + "/devices/" + fleet.devices[1].id + "/changes/groups.jsonl", encoding: .utf8)
        let stamp = try #require(own.split(separator: "\n").last.flatMap { $0.split(separator: "\"").dropFirst(3).first }.flatMap { Double($0.prefix { $0 != "-" }) })
        #expect(stamp < (fleet.devices[1].clock.now().timeIntervalSince1970 + 86_400) * 1_000, "B's own stamp stays near B's clock: \(own)")
        _ = try await fleet.start(on: 1, for: 60)
        let slot = try String(contentsOfFile: fleet.devices[1].data + "/devices/" + fleet.devices[1].id + "/changes/session.jsonl", encoding: .utf8)
        #expect(!slot.contains("\"at\":\"9000000"), "the session slot's stamps too: \(slot)")
        try fleet.sync()
        for index in [0, 1] {
            let targets = try await fleet.on(index) { try await $0.resolve((any GroupRepository).self).group(named: "work") }?.targets.map(\.description)
            #expect(Set(targets ?? []).isSuperset(of: ["far.test", "near.test"]), "m\(index): \(targets ?? [])")
        }
    }

    @Test("a break and an allowance taken on one device lower the block on the other; the resume and the allowance's end raise it")
    func sharedStateIsShared() async throws {
        let fleet = try await FleetScenario(skews: [0, 0])
        let session = try await fleet.start(on: 0, for: 3_000)
        try fleet.sync()
        _ = try await fleet.status(on: 1)
        #expect(try await fleet.block(on: 1) == session.id)

        _ = try await fleet.on(0) { try await $0.resolve(PauseSessionUseCase.self).execute() }
        try fleet.sync()
        #expect(try await fleet.status(on: 1)?.session.isPaused == true)
        #expect(try await fleet.block(on: 1) == nil, "the break taken on A lowered B's block")

        _ = try await fleet.on(0) { try await $0.resolve(ResumeSessionUseCase.self).execute() }
        try fleet.sync()
        #expect(try await fleet.status(on: 1)?.session.isPaused == false)
        #expect(try await fleet.block(on: 1) == session.id, "the resume on A raised B's block")

        _ = try await fleet.on(0) { try await $0.resolve(AllowUseCase.self).allow("work", for: 60) }
        try fleet.sync()
        _ = try await fleet.status(on: 1)
        #expect(try await fleet.block(on: 1) == nil, "the allowance taken on A lowered B's block")
        fleet.advance(by: 61)
        _ = try await fleet.status(on: 1)
        #expect(try await fleet.block(on: 1) == session.id, "the allowance's end raised it again on B")
    }

    @Test("a session stopped on one device is never raised again on another by an older copy or a conflict copy of its log")
    func endingIsFinalEverywhere() async throws {
        let fleet = try await FleetScenario(skews: [0, 0])
        let session = try await fleet.start(on: 0, for: 3_000)
        try fleet.sync()
        _ = try await fleet.status(on: 1)
        let copy = fleet.devices[1].data + "/devices/" + fleet.devices[0].id + "/changes/session.jsonl"
        let old = try Data(contentsOf: URL(fileURLWithPath: copy))
        _ = try await fleet.on(0) { try await $0.resolve(StopSessionUseCase.self).execute() }
        try fleet.sync()
        #expect(try await fleet.status(on: 1) == nil)
        #expect(try await fleet.block(on: 1) == nil)
        _ = fleet.shieldCalls(on: 1)

        // rsync run from a stale copy, without --update: the old log is back.
        try old.write(to: URL(fileURLWithPath: copy))
        fleet.devices[1].arrivals.record(copy, at: fleet.devices[1].clock.now())
        #expect(try await fleet.status(on: 1) == nil, "the older copy does not run it again")
        // Syncthing's conflict copy of the old log beside the new one.
        try fleet.sync()
        try old.write(to: URL(fileURLWithPath: copy.replacingOccurrences(of: "session.jsonl", with: "session.sync-conflict-20270115-080000-ABCDEFG.jsonl")))
        #expect(try await fleet.status(on: 1) == nil, "nor does a conflict copy")
        #expect(!fleet.shieldCalls(on: 1).contains(.raise(session.id)), "its block was never raised again, not for a moment")
        #expect(try await fleet.history(on: 1)[session.id.description]?.outcome == .stopped)
    }

    @Test("a block left up for a session whose lines the other device's log has since dropped (compacted) goes once history shows it ended")
    func endedBlockGoesAfterCompaction() async throws {
        let fleet = try await FleetScenario(skews: [0, 0])
        let session = try await fleet.start(on: 0, for: 60)
        try fleet.sync()
        _ = try await fleet.status(on: 1)
        #expect(try await fleet.block(on: 1) == session.id)

        // B hears nothing while A completes it and runs three more: A's log
        // of the slot keeps only its last removals (`removalsKept`).
        for _ in 0..<3 {
            fleet.advance(by: 61)
            _ = try await fleet.start(on: 0, for: 60)
        }
        fleet.advance(by: 61)
        #expect(try await fleet.status(on: 0) == nil)
        let log = try String(contentsOfFile: fleet.devices[0].data + "/devices/" + fleet.devices[0].id + "/changes/session.jsonl", encoding: .utf8)
        #expect(!log.contains(session.id.description), "A's log no longer names it: \(log)")

        try fleet.carry(from: 0, to: 1)
        #expect(try await fleet.status(on: 1) == nil)
        #expect(try await fleet.history(on: 1)[session.id.description]?.outcome == .completed)
        #expect(try await fleet.block(on: 1) == nil, "history shows it ended: B's block of it goes")
    }

    @Test("a machine whose clock runs an hour slow never stops a session started elsewhere for a strict one whose end has passed on its own device's clock (fleet seed 22683)")
    func slowClockKeepsNoEndedStrictSession() async throws {
        let fleet = try await FleetScenario(skews: [0, -3_600, 0])
        let strict = try await fleet.start(on: 0, for: 300, strict: true)
        try fleet.carry(from: 0, to: 1)
        #expect(try await fleet.status(on: 1)?.session.id == strict.id)

        // C never saw it: an hour later it starts a session of its own,
        // over what it took for an empty slot.
        fleet.advance(by: 3_600)
        let later = try await fleet.start(on: 2, for: 7_200)
        _ = fleet.shieldCalls(on: 1)
        try fleet.carry(from: 2, to: 1)
        // On B's clock the strict session has 300 s to go; on A's, its own,
        // it ended an hour ago.
        #expect(try await fleet.status(on: 1)?.session.id == later.id, "C's session holds on B")
        #expect(!fleet.shieldCalls(on: 1).contains(.lower(later.id)), "B never lowered its block")
        #expect(try await fleet.block(on: 1) == later.id)
        #expect(try await fleet.history(on: 1)[later.id.description] == nil, "B did not end it")
        let ended = try #require(try await fleet.history(on: 1)[strict.id.description])
        #expect(ended.outcome == .completed && ended.endedAt == strict.plannedEnd, "the strict one completed at its end: \(ended)")
    }

    @Test("a session cancelled on one device stays cancelled when the other, unseen of it, edited it long enough to compact its log (fleet seed 26766)")
    func cancelOutlivesCompactedEdits() async throws {
        let fleet = try await FleetScenario(skews: [0, 0])
        let session = try await fleet.start(on: 0, for: 3_000)
        try fleet.sync()
        fleet.advance(by: 1)
        _ = try await fleet.on(1) { try await $0.resolve(CancelSessionUseCase.self).execute() }

        // A hears nothing of it, and takes and ends breaks: enough lines
        // that its log of the slot is compacted, its first edits dropped.
        for _ in 0..<4 {
            fleet.advance(by: 1)
            _ = try await fleet.on(0) { try await $0.resolve(PauseSessionUseCase.self).execute() }
            fleet.advance(by: 1)
            _ = try await fleet.on(0) { try await $0.resolve(ResumeSessionUseCase.self).execute() }
        }
        let log = try String(contentsOfFile: fleet.devices[0].data + "/devices/" + fleet.devices[0].id + "/changes/session.jsonl", encoding: .utf8)
        #expect(log.split(separator: "\n").count < 9, "A's log was compacted: \(log)")

        try fleet.sync()
        for index in [0, 1] {
            #expect(try await fleet.status(on: index) == nil, "m\(index): the cancel holds")
            #expect(try await fleet.block(on: index) == nil, "m\(index)'s block of it is down")
            #expect(try await fleet.history(on: index)[session.id.description] == nil, "m\(index): a cancelled session is not history")
        }
    }

    @Test("a block raised for a session cancelled elsewhere goes once that device's compacted log names it no more, and an older copy of that log lowers nothing (fleet seed 28004)")
    func cancelledBlockGoesAfterCompaction() async throws {
        let fleet = try await FleetScenario(skews: [0, 0])
        // A's log as it was before the session: B keeps a copy of it.
        _ = try await fleet.start(on: 0, for: 60)
        _ = try await fleet.on(0) { try await $0.resolve(StopSessionUseCase.self).execute() }
        try fleet.carry(from: 0, to: 1)
        let copy = fleet.devices[1].data + "/devices/" + fleet.devices[0].id + "/changes/session.jsonl"
        let older = try Data(contentsOf: URL(fileURLWithPath: copy))

        fleet.advance(by: 1)
        let session = try await fleet.start(on: 0, for: 3_000)
        try fleet.carry(from: 0, to: 1)
        #expect(try await fleet.status(on: 1)?.session.id == session.id)
        #expect(try await fleet.block(on: 1) == session.id, "B raised its block from A's value")

        // rsync from a stale copy: A's log as it was before the session
        // names it nowhere, yet it runs on A.
        try older.write(to: URL(fileURLWithPath: copy))
        fleet.devices[1].arrivals.record(copy, at: fleet.devices[1].clock.now())
        _ = try await fleet.status(on: 1)
        #expect(try await fleet.block(on: 1) == session.id, "an older copy of A's log lowers no block")

        // B hears nothing while A cancels it and runs three more: A's log
        // of the slot drops every line of it, its removal too.
        fleet.advance(by: 1)
        _ = try await fleet.on(0) { try await $0.resolve(CancelSessionUseCase.self).execute() }
        for _ in 0..<3 {
            fleet.advance(by: 1)
            _ = try await fleet.start(on: 0, for: 60)
            _ = try await fleet.on(0) { try await $0.resolve(StopSessionUseCase.self).execute() }
        }
        let log = try String(contentsOfFile: fleet.devices[0].data + "/devices/" + fleet.devices[0].id + "/changes/session.jsonl", encoding: .utf8)
        #expect(!log.contains(session.id.description), "A's log no longer names it: \(log)")

        try fleet.carry(from: 0, to: 1)
        #expect(try await fleet.status(on: 1) == nil)
        #expect(try await fleet.block(on: 1) == nil, "A's log dropped the value B raised its block from, under later lines: B's block of it goes")
        #expect(try await fleet.history(on: 1)[session.id.description] == nil, "a cancelled session is not history")
    }

    @Test("a machine that learned another device's clock was set back an hour keeps judging its session by it when the log that told it is left out (fleet seed 30735)")
    func clockMoveOutlivesItsLog() async throws {
        let fleet = try await FleetScenario(skews: [0, 0])
        // A's groups log was written before: its lines say A's clock as it was.
        fleet.advance(by: 60)
        fleet.devices[0].clock.setWallClock(to: fleet.devices[0].clock.now().addingTimeInterval(-3_600))
        let session = try await fleet.start(on: 0, for: 300)
        try fleet.sync()
        #expect(try await fleet.status(on: 1)?.session.id == session.id, "B judges it by A's clock, an hour behind its own")
        // B takes a break and resumes: its own log holds the session too.
        _ = try await fleet.on(1) { try await $0.resolve(PauseSessionUseCase.self).execute() }
        _ = try await fleet.on(1) { try await $0.resolve(ResumeSessionUseCase.self).execute() }

        // B's copy of A's log of the slot is emptied (a disk that failed
        // there): only A's groups log, from before the move, still reads.
        try Data().write(to: URL(fileURLWithPath: fleet.devices[1].data + "/devices/" + fleet.devices[0].id + "/changes/session.jsonl"))
        #expect(try await fleet.status(on: 1)?.session.id == session.id, "still running on B, 300 s before its end on A's clock")
        #expect(try await fleet.history(on: 1)[session.id.description] == nil, "B never completed it early")
        #expect(try await fleet.block(on: 1) == session.id)
    }

    @Test("another device's emptied log stops no command, is named by sync status and left as it is by doctor --repair")
    func peerDamageIsNotMine() async throws {
        let fleet = try await FleetScenario(skews: [0, 0])
        let session = try await fleet.start(on: 0, for: 3_000)
        try fleet.sync()
        _ = try await fleet.status(on: 1)
        let copy = fleet.devices[1].data + "/devices/" + fleet.devices[0].id + "/changes/session.jsonl"
        try Data().write(to: URL(fileURLWithPath: copy))
        _ = try await fleet.status(on: 1)
        #expect(try await fleet.block(on: 1) == session.id, "a log left out of the merge lowers no block")
        let sync = try await fleet.on(1) { try $0.resolve(SyncStatusUseCase.self).execute() }
        #expect(sync.unreadable == ["devices/\(fleet.devices[0].id)/changes/session.jsonl"], "\(sync.unreadable)")
        let checks = try await fleet.on(1) { try await $0.resolve(DoctorUseCase.self).execute(repairing: true) }
        #expect(!checks.contains { $0.status == .error }, "\(checks)")
        #expect(try Data(contentsOf: URL(fileURLWithPath: copy)).isEmpty, "the file is left as it is")
        let folder = (copy as NSString).deletingLastPathComponent
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder).filter { $0.contains(".corrupt-") }.isEmpty, "nothing moved aside")
        _ = try await fleet.on(1) { try await $0.resolve(BlockTargetsUseCase.self).execute(group: "work", targets: ["c.test"]) }
    }

    @Test("this device's own log, damaged, is restored by doctor --repair with every record its last good copy held")
    func ownDamageIsRecoverable() async throws {
        let fleet = try await FleetScenario(skews: [0])
        for target in ["t1.test", "t2.test", "t3.test"] {
            _ = try await fleet.on(0) { try await $0.resolve(BlockTargetsUseCase.self).execute(group: "work", targets: [target]) }
        }
        let log = fleet.devices[0].data + "/devices/" + fleet.devices[0].id + "/changes/groups.jsonl"
        try Data("garbage\u{0}\n".utf8).write(to: URL(fileURLWithPath: log))
        await #expect(throws: StoreError.self, "a damaged log of its own is an error naming it") {
            _ = try await fleet.on(0) { try await $0.resolve((any GroupRepository).self).group(named: "work") }
        }
        let checks = try await fleet.on(0) { try await $0.resolve(DoctorUseCase.self).execute(repairing: true) }
        let groups = try #require(checks.first { $0.name == "groups data" })
        #expect(groups.status == .repaired && groups.detail.contains("put back") && groups.detail.contains("last good copy"), "\(groups.detail)")
        let targets = try await fleet.on(0) { try await $0.resolve((any GroupRepository).self).group(named: "work") }?.targets.map(\.description)
        #expect(Set(targets ?? []) == ["a.test", "b.test", "t1.test", "t2.test", "t3.test"], "\(targets ?? [])")
    }
}
