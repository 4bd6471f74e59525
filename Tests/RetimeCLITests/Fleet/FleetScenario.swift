@testable import RetimeCLI
import Adapters
import Domain
import Foundation

/// A few devices of the fleet simulation, scripted step by step instead of
/// drawn at random: the pinned scenarios of semantics.md, "Devices you can
/// trust" (`TrustedDevicesTests`). Each device has its own clock, `skews`
/// off the true time; `work` blocks a.test and b.test and has an allowance
/// of 10 minutes; every shield records (`none`).
final class FleetScenario {
    let devices: [FleetDevice]
    let fabric: SyncFabric
    let folder: String
    private(set) var trueTime: Date

    init(skews: [TimeInterval]) async throws {
        folder = FleetSimulation.scratch + "/retime-scenario-\(UUID().uuidString.prefix(8))"
        // A fixed instant: nothing here hangs on when the test runs.
        trueTime = Date(timeIntervalSince1970: 1_800_000_000)
        var devices: [FleetDevice] = []
        var random = FleetRandom(seed: 7)
        for (index, skew) in skews.enumerated() {
            let clock = ManualClock(now: trueTime.addingTimeInterval(skew), bootID: "boot-\(index)-0")
            devices.append(try FleetDevice(index: index, id: random.uuid(), machine: folder + "/m\(index)", clock: clock))
        }
        self.devices = devices
        fabric = SyncFabric(devices: devices)
        fabric.trueTime = trueTime
        _ = try await devices[0].command { try await $0.resolve(CreateGroupUseCase.self).execute(name: "work", targets: ["a.test", "b.test"]) }
        _ = try await devices[0].command { try await $0.resolve(SetAllowanceUseCase.self).execute(group: "work", allowance: 600) }
        for device in devices {
            _ = try await device.command { try await $0.resolve(ConfigureSettingUseCase.self).set("shield", to: "none") }
        }
        try sync()
    }

    deinit { try? FileManager.default.removeItem(atPath: folder) }

    /// True time passes on every clock.
    func advance(by seconds: TimeInterval) {
        trueTime += seconds
        fabric.trueTime = trueTime
        for device in devices { device.clock.advance(by: seconds) }
    }

    /// Every device's files reach every other device, promptly.
    func sync() throws {
        for index in devices.indices {
            fabric.lastCommand[index] = trueTime
            fabric.capture(index)
        }
        try fabric.settle()
    }

    /// Device `from`'s files reach device `to` alone.
    func carry(from: Int, to: Int) throws {
        fabric.lastCommand[from] = trueTime
        fabric.capture(from)
        while fabric.hasPending(for: to) { _ = try fabric.deliver(to: to, .newest, pick: { _ in 0 }, cutAt: { $0 / 2 }) }
    }

    /// Runs a use case on device `index`, as one retime command.
    func on<T>(_ index: Int, reconciling: Bool = false, _ body: (Container) async throws -> T) async throws -> T {
        try await devices[index].command(reconciling: reconciling, body)
    }

    func start(on index: Int, for length: TimeInterval, strict: Bool = false) async throws -> Session {
        try await on(index) {
            try await $0.resolve(StartSessionUseCase.self).execute(SessionPlan(groupName: "work", length: .duration(length), strict: strict))
        }.session
    }

    /// `status` on device `index`: the session it shows.
    func status(on index: Int) async throws -> SessionStatus? {
        try await on(index) { try await $0.resolve(SessionStatusUseCase.self).execute() }
    }

    /// The sessions device `index`'s history holds, by id.
    func history(on index: Int) async throws -> [String: Session] {
        let sessions = try await on(index) { try await $0.resolve((any SessionHistory).self).sessions(matching: .all) }
        return Dictionary(sessions.map { ($0.id.description, $0) }, uniquingKeysWith: { first, _ in first })
    }

    /// What device `index`'s shield was asked to do since last asked.
    func shieldCalls(on index: Int) -> [ShieldLog.Entry] { devices[index].shieldLog.drain() }

    /// The session whose block device `index`'s shield holds, if any.
    func block(on index: Int) async throws -> SessionID? {
        try await on(index) { try await $0.resolve((any ShieldDirectory).self).configured().state() }?.session
    }
}
