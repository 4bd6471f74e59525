import Adapters
import Domain
import Foundation
import PortContracts
import Testing

/// The session slot's repository keeps the session it last decoded or wrote
/// (`DecodedSessions`), so a `stop` decodes the slot once instead of three
/// times. What it answers must always be the slot as the logs hold it now.
@Suite("The session slot's decoded session is never stale")
struct SessionSlotDecodingTests {
    static let laptop = "0a1b2c3d-0000-4000-8000-000000000001"
    static let desktop = "0a1b2c3d-0000-4000-8000-000000000002"

    /// A repository as one process of `device` makes it, on the folder `devices`.
    static func repository(_ devices: String, _ device: String) -> StoreSessionRepository {
        StoreSessionRepository(store: ReplicatedLogStore.dataFolder(devices: devices, deviceID: { device }, now: { Date() }, compactionInterval: 0))
    }

    @Test("another device's change of the slot is read, and the stale copy refused, however alike the two sessions' JSON")
    func anotherDeviceChangesTheSlot() async throws {
        let devices = TemporaryDirectory().file("devices")
        let here = Self.repository(devices, Self.laptop), there = Self.repository(devices, Self.desktop)
        let first = Fixtures.session(startingAt: 10)
        #expect(try await here.replace(nil, with: first))
        #expect(try await there.current() == first)
        // The same group, a start one second later: JSON of the same size and shape.
        let second = Fixtures.session(group: first.groupId, startingAt: 11)
        #expect(try await here.replace(first, with: nil))
        #expect(try await here.replace(nil, with: second))
        #expect(try await there.current() == second)
        #expect(!(try await there.replace(first, with: nil)), "the session it decoded before is not the slot's any more")
        // Back to the first session (A, B, A): what it holds now, not what it kept.
        let paused = try second.pausing(at: Fixtures.instant(40))
        #expect(try await there.replace(second, with: paused))
        #expect(try await here.current() == paused)
        #expect(!(try await here.replace(second, with: nil)))
        #expect(try await here.replace(paused, with: first))
        #expect(try await there.current() == first)
    }

    @Test("another process of the same device writing the slot (its own store, same log) is read")
    func anotherProcessChangesTheSlot() async throws {
        let devices = TemporaryDirectory().file("devices")
        let command = Self.repository(devices, Self.laptop), daemon = Self.repository(devices, Self.laptop)
        let session = Fixtures.session(startingAt: 10)
        #expect(try await command.replace(nil, with: session))
        #expect(try await daemon.current() == session)
        let ended = session.ending(at: Fixtures.instant(20), outcome: .stopped)
        #expect(try await daemon.replace(session, with: ended))
        #expect(try await command.current() == ended, "the command wrote `session` last; the daemon's end is what it reads")
        #expect(!(try await command.replace(session, with: nil)))
        #expect(try await command.replace(ended, with: nil))
        #expect(try await daemon.current() == nil)
    }
}
