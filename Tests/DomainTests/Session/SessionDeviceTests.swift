import Adapters
import Domain
import Foundation
import Testing

/// A `DeviceDirectory` whose answers the test fixes.
struct FixedDevices: DeviceDirectory {
    struct Unreadable: Error {}
    var this: String?
    var names: [String: String] = [:]
    /// Each other device's clock against this one's, as the test says.
    var offsets: [String: TimeInterval] = [:]

    func thisDevice() throws -> String {
        guard let this else { throw Unreadable() }
        return this
    }

    func name(of device: String) -> String? { names[device] }
    func clockOffset(of device: String) -> TimeInterval? { offsets[device] }
}

@Suite("A session records the device it was started on")
struct SessionDeviceTests {
    func start(_ world: SessionWorld, on devices: FixedDevices) -> StartSessionUseCase {
        StartSessionUseCase(sessions: world.sessions, groups: GroupRepositoryLookup(groups: world.groups), shields: world.shields,
                            clock: world.clock, events: world.events, active: world.active, dataLock: InMemoryDataLock(),
                            devices: devices)
    }

    func status(_ world: SessionWorld, on devices: FixedDevices) -> SessionStatusUseCase {
        SessionStatusUseCase(sessions: world.sessions, active: world.active, devices: devices)
    }

    @Test("start records this device; status on it names it and does not call it another device")
    func sameDevice() async throws {
        let world = try await SessionWorld()
        let here = FixedDevices(this: "laptop-id", names: ["laptop-id": "laptop"])
        let session = try await start(world, on: here).execute(SessionPlan(groupName: "work", length: .duration(600))).session
        #expect(session.device == "laptop-id")
        #expect(try await world.sessions.current()?.device == "laptop-id")
        let shown = try #require(try await status(world, on: here).execute())
        #expect(shown.deviceName == "laptop" && !shown.startedElsewhere)
    }

    @Test("status on another device says the session was started elsewhere, and names that device")
    func otherDevice() async throws {
        let world = try await SessionWorld()
        try await start(world, on: FixedDevices(this: "laptop-id")).execute(SessionPlan(groupName: "work", length: .duration(600)))
        let shown = try #require(try await status(world, on: FixedDevices(this: "desktop-id", names: ["laptop-id": "laptop"])).execute())
        #expect(shown.startedElsewhere && shown.deviceName == "laptop")
    }

    @Test("a device id that cannot be read does not stop a start: the session names no device, and status calls it no one's")
    func unreadableID() async throws {
        let world = try await SessionWorld()
        let session = try await start(world, on: FixedDevices(this: nil)).execute(SessionPlan(groupName: "work", length: .duration(600))).session
        #expect(session.device == nil)
        _ = try await world.stop.execute()
        try await start(world, on: FixedDevices(this: "laptop-id")).execute(SessionPlan(groupName: "work", length: .duration(600)))
        let shown = try #require(try await status(world, on: FixedDevices(this: nil)).execute())
        #expect(!shown.startedElsewhere)
    }
}
