import Domain
import Foundation
import PortContracts
import Testing

/// Strict time is one rule (`StrictTime`) that the session and the system
/// service's held block both decide through; they differ only in what a
/// reboot does (issue 30).
@Suite("Strict time: one rule for the session and the held block")
struct StrictTimeTests {
    /// A strict session as an earlier retime wrote session.json: 25 minutes
    /// from 11:06:40, its boot-time deadline at 3,600 s of boot b7a5.
    static let oldSession = """
        {"bootDeadline":{"bootID":"b7a5c3e2-boot","seconds":3600},"breaks":[],"groupId":"11111111-2222-4333-8444-555555555555",\
        "groupName":"work","id":"6b1f2c3d-4e5f-4a6b-8c7d-9e0f1a2b3c4d","origin":"manual","outcome":"active",\
        "plannedEnd":"2026-11-18T11:31:40Z","shield":"system","startedAt":"2026-11-18T11:06:40Z","strict":true,"tags":[]}
        """
    /// The service's block for it as an earlier retime stored it: 600 s of
    /// its 1,500 served by boot-time reading 2,700.
    static let oldBlocks = """
        [{"checkpoint":{"bootID":"b7a5c3e2-boot","seconds":2700},"length":1500,"plannedEnd":"2026-11-18T11:31:40Z","served":600,\
        "session":"6b1f2c3d-4e5f-4a6b-8c7d-9e0f1a2b3c4d","strict":true,"targets":["example.com"],"uid":1000}]
        """
    static let plannedEnd = Timestamp.parse("2026-11-18T11:31:40Z")!
    static func boot(_ seconds: TimeInterval, _ id: String = "b7a5c3e2-boot") -> BootTimeReading { BootTimeReading(bootID: id, seconds: seconds) }

    @Test("a session written by the old code decodes, and a wall clock moved past its end does not end it while boot time is owed")
    func oldSession() throws {
        let session = try StoreJSON.decoder().decode(Session.self, from: Data(Self.oldSession.utf8))
        #expect(session.strict && session.strictTime.reboot == .wallClockDecides)
        let moved = Self.plannedEnd.addingTimeInterval(3_600)   // the wall clock an hour on, 900 s of boot time left
        #expect(!session.isExpired(at: moved, boot: Self.boot(2_700)))
        #expect(session.bootTimeLeft(boot: Self.boot(2_700)) == 900)
        #expect(session.endOnWallClock(at: moved, boot: Self.boot(2_700)) == moved.addingTimeInterval(900))
        #expect(session.isExpired(at: moved, boot: Self.boot(3_599.5)), "within the tolerance")
        // After a reboot the wall clock alone decides.
        #expect(session.isExpired(at: moved, boot: Self.boot(10, "another-boot")))
        #expect(session.endOnWallClock(at: moved, boot: Self.boot(10, "another-boot")) == Self.plannedEnd)
    }

    @Test("held blocks written by the old code decode, and the time owed carries over a reboot")
    func oldBlocks() throws {
        var block = try #require(try StoreJSON.decoder().decode([HeldBlock].self, from: Data(Self.oldBlocks.utf8)).first)
        #expect(block.strictTime.reboot == .owedTimeCarriesOver && block.strictTime.owed(at: block.checkpoint) == 900)
        let moved = Self.plannedEnd.addingTimeInterval(3_600)
        #expect(!block.isOver(at: moved) && block.end(at: moved) == moved.addingTimeInterval(900))
        // A reboot: the time the machine was off is not served.
        block.advance(to: Self.boot(5, "another-boot"))
        #expect(block.served == 600 && !block.isOver(at: moved))
        block.advance(to: Self.boot(904.5, "another-boot"))
        #expect(block.isOver(at: moved), "within the tolerance")
        // Encoded again, it is the same format.
        let again = try StoreJSON.decoder().decode([HeldBlock].self, from: StoreJSON.encoder().encode([block]))
        #expect(again == [block])
    }

    @Test("in one boot the session and its block agree on whether the time is up, at every reading")
    func oneRule() throws {
        let session = try StoreJSON.decoder().decode(Session.self, from: Data(Self.oldSession.utf8))
        let stored = try #require(try StoreJSON.decoder().decode([HeldBlock].self, from: Data(Self.oldBlocks.utf8)).first)
        for seconds in stride(from: 2_700.0, through: 3_700, by: 50) {
            for now in [Self.plannedEnd.addingTimeInterval(-60), Self.plannedEnd, Self.plannedEnd.addingTimeInterval(7_200)] {
                var block = stored
                block.advance(to: Self.boot(seconds))
                #expect(session.isExpired(at: now, boot: Self.boot(seconds)) == block.isOver(at: now), "at \(seconds) s, \(now)")
            }
        }
    }

    @Test("an open-ended or non-strict time is the wall clock's alone")
    func wallClockAlone() {
        let open = StrictTime(plannedEnd: nil, owed: nil, asOf: nil, reboot: .wallClockDecides)
        #expect(!open.isOver(at: .distantFuture, boot: nil) && open.end(at: .now, boot: nil) == nil)
        let plain = StrictTime(plannedEnd: Self.plannedEnd, owed: nil, asOf: Self.boot(1), reboot: .owedTimeCarriesOver)
        #expect(plain.isOver(at: Self.plannedEnd, boot: Self.boot(1)) && plain.end(at: .distantPast, boot: nil) == Self.plannedEnd)
    }
}
