import Foundation
import Testing

/// The fleet simulation (`FleetSimulation`) over many seeds: devices with
/// wrong clocks, late, doubled, torn and conflicting copies, damaged files,
/// and the invariants of semantics.md, "Devices you can trust", after every
/// step. A failure prints the seed, its steps and the one command that
/// replays it.
@Suite("A simulated fleet of devices sharing a data folder")
struct FleetSimulationTests {
    /// Seeds a run of the suite covers, spread over the test's tasks.
    static let seeds = Int(ProcessInfo.processInfo.environment["RETIME_FLEET_SEEDS"] ?? "") ?? 2_000
    /// The seed a run starts from (a nightly run picks another).
    static let firstSeed = UInt64(ProcessInfo.processInfo.environment["RETIME_FLEET_FIRST_SEED"] ?? "") ?? 1

    /// A lane stops after this many failing seeds.
    static let failuresPerLane = Int(ProcessInfo.processInfo.environment["RETIME_FLEET_FAILURES"] ?? "") ?? 3

    static func options(seed: UInt64) -> FleetSimulation.Options {
        // Two to ten devices, mostly few; 40 to 100 steps.
        var random = FleetRandom(seed: seed ^ 0xF1EE7)
        return FleetSimulation.Options(devices: random.weighted([(6, 2), (4, 3), (2, 4), (1, 6), (1, 10)]), steps: 40 + random.below(61))
    }

    /// Runs `seed`; returns what it found, with its steps and how to replay it.
    static func run(_ seed: UInt64, options: FleetSimulation.Options) async throws -> String? {
        let simulation = try FleetSimulation(seed: seed, options: options)
        try await simulation.run()
        guard !simulation.violations.isEmpty else { return nil }
        return "seed \(seed): " + simulation.violations.prefix(3).map(\.description).joined(separator: "\n")
            + "\nreplay: " + simulation.replay + "\nlast steps:\n" + simulation.steps.suffix(25).joined(separator: "\n")
    }

    /// In-process: a run against the release binary (`RETIME_TEST_BINARY`,
    /// CI's second pass of the end-to-end suites) would repeat this one.
    @Test("seeded runs of 2 to 10 devices keep every invariant after every step",
          .disabled(if: ProcessInfo.processInfo.environment["RETIME_TEST_BINARY"] != nil, "in-process: the binary under test is not used"))
    func seededRuns() async throws {
        let lanes = 4
        let failures = try await withThrowingTaskGroup(of: [String].self) { group in
            for lane in 0..<lanes {
                group.addTask {
                    var found: [String] = []
                    var seed = Self.firstSeed + UInt64(lane)
                    while seed < Self.firstSeed + UInt64(Self.seeds) {
                        if let failure = try await Self.run(seed, options: Self.options(seed: seed)) { found.append(failure) }
                        if found.count >= Self.failuresPerLane { break }
                        seed += UInt64(lanes)
                    }
                    return found
                }
            }
            return try await group.reduce(into: []) { $0 += $1 }
        }
        if let first = failures.first {
            let summary = failures.map { $0.prefix { $0 != "\n" } }.joined(separator: "\n")
            Issue.record("\(failures.count) seed(s) failed:\n\(summary)\n\nthe first:\n\(first)")
        }
    }

    /// Issue 43's defects, each with a seed of this simulation that fails
    /// when its fix is undone (found so: the fix reverted, seeds 1-400 run,
    /// the first failing seed kept; docs/storage.md, "The fleet
    /// simulation"). The seventh, `sync status`'s lag, is not the
    /// simulation's: `SyncStatusTests` pins it.
    struct PinnedSeed: Sendable, CustomTestStringConvertible {
        var defect: String
        var seed: UInt64
        var testDescription: String { "seed \(seed): \(defect)" }
    }

    static let pinned: [PinnedSeed] = [
        PinnedSeed(defect: "a fast clock ends sessions started elsewhere (SessionClocks)", seed: 17),
        PinnedSeed(defect: "a stamp from year 4821 becomes every device's clock (HybridClock.horizon)", seed: 1),
        PinnedSeed(defect: "a break taken elsewhere leaves this device blocked (ActiveSession.lowerIfUp)", seed: 133),
        PinnedSeed(defect: "an ended session's block is raised again (the history vet of ActiveSession.raiseIfDown)", seed: 16),
        PinnedSeed(defect: "another device's damaged file fails every command (ChangeLogReader leaves it out)", seed: 10),
        PinnedSeed(defect: "a device's own damaged log loses its records (the last good copy, doctor --repair)", seed: 27),
    ]

    @Test("each of issue 43's defects stays fixed: its pinned seed keeps every invariant",
          .disabled(if: ProcessInfo.processInfo.environment["RETIME_TEST_BINARY"] != nil, "in-process: the binary under test is not used"),
          arguments: pinned)
    func pinnedSeed(_ pinned: PinnedSeed) async throws {
        if let failure = try await Self.run(pinned.seed, options: Self.options(seed: pinned.seed)) { Issue.record("\(pinned.defect)\n\(failure)") }
    }

    /// Seeds that failed while the simulation was being built, each before
    /// the fix it led to (of retime, or of the simulation's own model):
    /// early ends on a fast or moved clock, ended sessions raised again,
    /// blocks left up, a target lost to a far stamp, another device's
    /// damaged file failing a command. The simulation has grown since, so
    /// a seed no longer replays its first failure step for step; the
    /// defects themselves are pinned step by step in `TrustedDevicesTests`.
    static let onceFailed: [UInt64] = [
        96, 115, 168, 197, 217, 364, 461, 583, 627, 693, 764, 999, 1243, 1456, 1535, 1736, 2548, 2894, 2922, 3293,
        3540, 3637, 4042, 4126, 4407, 4842, 5356, 5507, 5743, 7200, 7690, 14958, 22683, 26766, 28004, 30735,
    ]

    @Test("seeds that once failed keep every invariant", .disabled(if: ProcessInfo.processInfo.environment["RETIME_TEST_BINARY"] != nil,
                                                                  "in-process: the binary under test is not used"),
          arguments: onceFailed)
    func onceFailedSeed(_ seed: UInt64) async throws {
        if let failure = try await Self.run(seed, options: Self.options(seed: seed)) { Issue.record("\(failure)") }
    }

    /// `RETIME_FLEET_SEED=N swift test --filter 'FleetSimulationTests/replay'`
    /// runs seed N alone and prints every step.
    @Test("replays the seed RETIME_FLEET_SEED names", .enabled(if: ProcessInfo.processInfo.environment["RETIME_FLEET_SEED"] != nil))
    func replay() async throws {
        let environment = ProcessInfo.processInfo.environment
        let seed = UInt64(environment["RETIME_FLEET_SEED"] ?? "") ?? 1
        var options = Self.options(seed: seed)
        if let devices = Int(environment["RETIME_FLEET_DEVICES"] ?? "") { options.devices = devices }
        if let steps = Int(environment["RETIME_FLEET_STEPS"] ?? "") { options.steps = steps }
        let simulation = try FleetSimulation(seed: seed, options: options)
        try await simulation.run()
        print(simulation.steps.joined(separator: "\n"))
        if !simulation.violations.isEmpty { Issue.record("\(simulation.violations.map(\.description).joined(separator: "\n"))") }
    }
}
