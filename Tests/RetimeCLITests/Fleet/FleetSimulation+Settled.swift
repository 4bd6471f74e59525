@testable import RetimeCLI
import Adapters
import Domain
import Foundation

/// The checks that hold once the fabric has delivered everything and each
/// device has run a command (its reconcile) since.
extension FleetSimulation {
    /// Delivers everything and lets every device run `status` until no
    /// device writes anything more (each round delivers what the last one
    /// wrote), then holds every device to the others and to the model.
    func settleAndCheck() async throws {
        note("settle")
        // The last round's `status` also reads what the checks need, in its
        // own process after it ran: a round that changed nothing leaves
        // what it read standing (no other process runs in between).
        var settled = false
        defer { observations = nil }
        for _ in 0..<4 {
            observations = Array(repeating: nil, count: devices.count)   // a status refused reads nothing
            let before = devices.map { SyncFabric.ownStamps(of: $0) }
            try fabric.settle()
            for device in devices { try await command(on: device.index, only: .status) }
            if devices.map({ SyncFabric.ownStamps(of: $0) }) == before { settled = true; break }
        }
        try fabric.settle()
        guard violations.isEmpty else { return }
        var seen: [Observation] = []
        for device in devices {
            if settled, let observed = observations?[device.index] { seen.append(observed) } else { seen.append(try await device.command(Self.observe)) }
        }
        var slots: [Session?] = [], histories: [[String: String]] = []
        for (device, observed) in zip(devices, seen) {
            slots.append(observed.slot)
            histories.append(Dictionary(observed.history.map { ($0.id.description, $0.outcome.rawValue) }, uniquingKeysWith: { a, _ in a }))
            checkBlock(observed.block, against: observed.slot, on: device)
            checkAcknowledged(slot: observed.slot, history: histories.last!, groups: observed.groups, on: device)
        }
        for index in devices.indices.dropFirst() {
            if slots[index]?.id != slots[0]?.id || slots[index]?.isPaused != slots[0]?.isPaused {
                violated(.devicesConverge, "m\(index) runs \(slots[index].map { "\($0.id)" } ?? "nothing"), m0 \(slots[0].map { "\($0.id)" } ?? "nothing")")
            }
            if histories[index] != histories[0] {
                let differing = Set(histories[index].keys).union(histories[0].keys).filter { histories[index][$0] != histories[0][$0] }
                violated(.devicesConverge, "m\(index) and m0 differ on the history of \(differing.sorted())")
            }
        }
    }

    /// What one device holds, read through retime: its slot, its history,
    /// its block and its groups.
    struct Observation {
        var slot: Session?
        var history: [Session]
        var block: ShieldState?
        var groups: [Group]
    }

    static func observe(_ container: Container) async throws -> Observation {
        Observation(slot: try await container.resolve((any SessionRepository).self).current(),
                    history: try await container.resolve((any SessionHistory).self).sessions(matching: .all),
                    block: try await container.resolve((any ShieldDirectory).self).configured().state(),
                    groups: try await container.resolve((any GroupRepository).self).all())
    }

    private func checkBlock(_ block: ShieldState?, against slot: Session?, on device: FleetDevice) {
        let needed = slot.flatMap { $0.isActive && !$0.blockIsLifted ? $0.id : nil }
        if block?.session != needed {
            violated(.blockFollowsTheSession, "m\(device.index) blocks for \(block.map { "\($0.session)" } ?? "nothing") "
                + "while its session is \(slot.map { "\($0.id) \($0.blockIsLifted ? "(block lifted)" : "")" } ?? "none")")
        }
    }

    private func checkAcknowledged(slot: Session?, history: [String: String], groups: [Group], on device: FleetDevice) {
        let targets = Set(groups.flatMap { $0.targets.map(\.description) })
        for target in model.blocked where !targets.contains(target) {
            violated(.acknowledgedWritesHold, "m\(device.index) lost the target \(target)")
        }
        for target in model.unblocked where targets.contains(target) {
            violated(.acknowledgedWritesHold, "m\(device.index) still blocks \(target), which was unblocked")
        }
        for fact in model.sessions.values where fact.stopped || fact.cancelled {
            if slot?.id.description == fact.id {
                violated(.acknowledgedWritesHold, "m\(device.index) runs \(fact.id), which was \(fact.stopped ? "stopped" : "cancelled")")
            }
            if fact.stopped, history[fact.id] == nil {
                violated(.acknowledgedWritesHold, "m\(device.index)'s history lacks \(fact.id), which was stopped")
            }
        }
    }
}
