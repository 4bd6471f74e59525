@testable import RetimeCLI
import Adapters
import Domain
import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// A fleet of devices sharing one data folder through a sync fabric that
/// takes every liberty, driven by one seed: the real use cases on the real
/// file adapters, each device on a clock of its own (minutes to days off,
/// moved while it runs), and the invariants of semantics.md, "Devices you
/// can trust", checked after every step (`FleetInvariant`). A failing seed
/// replays with one command (`FleetSimulationTests.replay`).
final class FleetSimulation {
    let seed: UInt64
    let options: Options
    var random: FleetRandom
    let folder: String
    private(set) var devices: [FleetDevice] = []
    private(set) var fabric: SyncFabric!
    /// The one true time every device's clock is read against.
    private(set) var trueTime: Date
    /// Each device's clock minus the true time.
    private(set) var skews: [TimeInterval] = []
    /// What happened, a line a step: printed with a failure.
    private(set) var steps: [String] = []
    private(set) var violations: [FleetViolation] = []
    var model = FleetModel()
    let evidence = FleetEvidence()
    /// What each device's `status` of a settle's round saw after it ran
    /// (`FleetSimulation+Settled`); nil outside a settle.
    var observations: [Observation?]?
    /// Per device, the sessions its folder showed ended before its last command.
    private var knownEnded: [Set<String>] = []

    struct Options {
        var devices: Int
        var steps: Int
        /// Which liberties the fabric and the clocks take.
        var skews = true
        var clockSteps = true
        var farStamps = true
        var damage = true
        var oddDeliveries = true
        var crashes = true
    }

    init(seed: UInt64, options: Options) throws {
        self.seed = seed
        self.options = options
        random = FleetRandom(seed: seed)
        folder = Self.scratch + "/retime-fleet-\(seed)-\(UUID().uuidString.prefix(8))"
        trueTime = Date(timeIntervalSince1970: 1_800_000_000 + Double(random.below(86_400 * 365)))
        for index in 0..<options.devices {
            let skew = index == 0 || !options.skews ? 0 : random.weighted([
                (4, 0.0), (2, Double(random.below(40)) - 20), (2, 300.0), (2, -300.0), (2, 3_600.0), (2, -3_600.0), (1, 86_400.0 + 600),
                (1, -86_400.0), (1, 3 * 86_400.0),
            ])
            skews.append(skew)
            let clock = ManualClock(now: trueTime.addingTimeInterval(skew), bootID: "boot-\(index)-0")
            devices.append(try FleetDevice(index: index, id: random.uuid(), machine: folder + "/m\(index)", clock: clock))
        }
        fabric = SyncFabric(devices: devices)
        fabric.trueTime = trueTime
        knownEnded = Array(repeating: [], count: devices.count)
    }

    /// The folders go with the run, unless a replay keeps them to look at
    /// (`RETIME_FLEET_KEEP=1`).
    /// Where the machines' folders go: memory (`/dev/shm`) where there is
    /// some, as thousands of runs make and remove hundreds of thousands of
    /// small files; else the temporary directory.
    static let scratch: String = {
        var info = statvfs()
        if access("/dev/shm", W_OK) == 0, statvfs("/dev/shm", &info) == 0, UInt64(info.f_bavail) * UInt64(info.f_bsize) > 256 << 20 {
            return "/dev/shm"
        }
        return FileManager.default.temporaryDirectory.path
    }()

    deinit {
        if ProcessInfo.processInfo.environment["RETIME_FLEET_KEEP"] == nil { try? FileManager.default.removeItem(atPath: folder) }
    }

    /// The command that replays this run.
    var replay: String {
        "RETIME_FLEET_SEED=\(seed) RETIME_FLEET_DEVICES=\(options.devices) RETIME_FLEET_STEPS=\(options.steps) "
            + "swift test --filter 'FleetSimulationTests/replay'"
    }

    /// The true time, each step a microsecond after the one before at the
    /// same instant: what happened before what reads off it (a command's
    /// files captured, then a session started, within one second).
    var ordered: Date { trueTime.addingTimeInterval(Double(steps.count) * 1e-6) }

    func note(_ line: String) {
        steps.append("[\(steps.count)] t+\(Int(trueTime.timeIntervalSince1970) % 100_000) " + line)
        // Beside the devices' own log lines, when a replay asks for them.
        if FleetDevice.logLevel != .critical { FileHandle.standardError.write(Data((steps.last! + "\n").utf8)) }
    }

    func violated(_ invariant: FleetInvariant, _ detail: String) {
        violations.append(FleetViolation(invariant: invariant, step: steps.count, detail: detail))
    }

    /// Runs the whole simulation: a shared start (groups everyone has),
    /// then `options.steps` random steps, a settled fabric every so often
    /// and at the end, the invariants checked after each.
    func run() async throws {
        try await setUp()
        for _ in 0..<options.steps {
            try await step()
            if !violations.isEmpty { return }
            if random.chance(4) { try await settleAndCheck() }
            if !violations.isEmpty { return }
        }
        try await settleAndCheck()
    }

    private func setUp() async throws {
        let first = devices[0]
        _ = try await first.command { try await $0.resolve(CreateGroupUseCase.self).execute(name: "work", targets: ["a.test", "b.test"]) }
        _ = try await first.command { try await $0.resolve(CreateGroupUseCase.self).execute(name: "news", targets: ["news.test"]) }
        _ = try await first.command { try await $0.resolve(SetAllowanceUseCase.self).execute(group: "news", allowance: 600) }
        for target in ["a.test", "b.test", "news.test"] { model.blocked.insert(target) }
        for device in devices {
            _ = try await device.command { try await $0.resolve(ConfigureSettingUseCase.self).set("shield", to: "none") }
        }
        fabric.capture(0)
        try fabric.settle()
        note("set up: \(devices.count) devices, skews \(skews.map { Int($0) })")
    }

    /// One random step.
    func step() async throws {
        let kind = random.weighted([
            (20, StepKind.time), (34, .command), (22, .capture), (16, .deliver), (options.clockSteps ? 3 : 0, .clock),
            (options.damage ? 2 : 0, .damage), (options.farStamps ? 1 : 0, .farStamp), (2, .cut), (options.crashes ? 4 : 0, .crash),
            (options.damage ? 1 : 0, .repair), (options.damage ? 1 : 0, .ownDamage),
        ])
        switch kind {
        case .time: advance(by: random.weighted([(4, 0.3), (4, 2.0), (3, 20.0), (3, 90.0), (2, 600.0), (1, 3_600.0), (1, 20_000.0)]))
        case .command: try await command(on: random.below(devices.count))
        case .capture:
            let owner = random.below(devices.count)
            fabric.capture(owner)
            note("capture m\(owner)")
        case .deliver: try deliver()
        case .clock: moveClock()
        case .damage: try damagePeerFile()
        case .farStamp: try await farStamp()
        case .crash:
            // A command killed at one of its first writes, a part of that
            // write on disk.
            let plan = SimulatedCrash(atWrite: 1 + random.below(5), keeping: Double(random.below(101)) / 100)
            try await command(on: random.below(devices.count), crashing: plan)
        case .repair: try await repair(on: random.below(devices.count))
        case .ownDamage: try await damageOwnLog()
        case .cut:
            let link = [random.below(devices.count), random.below(devices.count)]
            if fabric.cut.contains(link) { fabric.cut.remove(link); note("join \(link)") } else { fabric.cut.insert(link); note("cut \(link)") }
        }
    }

    enum StepKind { case time, command, capture, deliver, clock, damage, farStamp, cut, crash, repair, ownDamage }

    /// True time passes; every clock moves with it.
    func advance(by seconds: TimeInterval) {
        passes(seconds)
        note("advance \(seconds)s")
    }

    /// True time passes, unnoted.
    func passes(_ seconds: TimeInterval) {
        trueTime += seconds
        fabric.trueTime = trueTime
        for device in devices { device.clock.advance(by: seconds) }
    }

    /// A device's wall clock set forward or back (a person, NTP).
    private func moveClock() {
        let index = random.below(devices.count)
        let by = random.weighted([(2, 3_600.0), (2, -3_600.0), (1, 120.0), (1, -120.0), (1, 86_400.0), (1, -skews[index])])
        skews[index] += by
        devices[index].clock.setWallClock(to: trueTime.addingTimeInterval(skews[index]))
        model.clockMoved(index, at: ordered, lastCommand: fabric.lastCommand[index])
        note("m\(index) clock moved by \(Int(by))s, now skew \(Int(skews[index]))s")
    }

    private func deliver() throws {
        let receiver = random.below(devices.count)
        let delivery: SyncFabric.Delivery = options.oddDeliveries
            ? random.weighted([(60, .newest), (10, .anyOrder), (8, .twice), (10, .halfWritten), (6, .conflictCopy)]) : .newest
        var generator = random
        let path = try fabric.deliver(to: receiver, delivery, pick: { generator.below($0) }, cutAt: { generator.below($0) })
        random = generator
        if let path { note("deliver to m\(receiver) \(delivery.rawValue) \(path)") }
    }

    /// Replaces one of another device's files in a device's folder with
    /// something that does not read: empty, garbage, a torn first line.
    private func damagePeerFile() throws {
        let receiver = random.below(devices.count)
        let device = devices[receiver]
        let peers = devices.filter { $0.index != receiver }
        guard !peers.isEmpty else { return }
        let owner = peers[random.below(peers.count)]
        let folder = device.data + "/devices/" + owner.id + "/changes"
        let names = ((try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? []).filter { $0.hasSuffix(".jsonl") }.sorted()
        guard !names.isEmpty else { return }
        let name = names[random.below(names.count)]
        let damage = random.weighted([(1, Data()), (1, Data("garbage\u{0}\u{1}\n".utf8)), (1, Data("{\"at\":\"1".utf8))])
        try damage.write(to: URL(fileURLWithPath: folder + "/" + name))
        device.arrivals.record(folder + "/" + name, at: device.clock.now())
        note("damage m\(receiver)'s copy of m\(owner.index)'s \(name) (\(damage.count) bytes)")
    }

    /// One line stamped year 4821 in a device's own log of the groups
    /// (a clock that once read so, a hand edit): it adds a target to
    /// `work`, which every device must keep, and no device may take its
    /// stamp for its own clock.
    private func farStamp() async throws {
        let index = random.below(devices.count)
        let device = devices[index]
        guard let group = try await device.command(reconciling: false, { try await $0.resolve((any GroupRepository).self).group(named: "work") })
        else { return }
        let folder = device.data + "/devices/" + device.id + "/changes"
        let line = "{\"at\":\"90000000000000-0-\(device.id)\",\"changes\":[{\"add\":\"targets\",\"value\":\"far.test\"}],\"key\":\"\(group.id)\"}\n"
        // Written as the device itself would have, its clock reading year
        // 4821: after a torn last line (a crash) is cut off.
        let path = folder + "/groups.jsonl"
        guard let bytes = try? Data(contentsOf: URL(fileURLWithPath: path)) else { return }
        let whole = bytes.lastIndex(of: 0x0A).map { bytes.prefix(through: $0) } ?? Data()
        try (whole + Data(line.utf8)).write(to: URL(fileURLWithPath: path))
        model.blocked.insert("far.test")
        model.farStamped.insert(index)
        note("m\(index)'s groups log gains a line stamped year 4821")
    }
}

struct FleetViolation: CustomStringConvertible {
    var invariant: FleetInvariant
    var step: Int
    var detail: String
    var description: String { "step \(step): \(invariant.rawValue): \(detail)" }
}
