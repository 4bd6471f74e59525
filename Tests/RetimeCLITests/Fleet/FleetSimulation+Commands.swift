@testable import RetimeCLI
import Adapters
import Domain
import Foundation

/// The commands a person runs on one device of the fleet, each through the
/// use case its CLI command runs, and the invariants checked around it.
extension FleetSimulation {
    enum Command: String, CaseIterable {
        case start, stop, cancel, pause, resume, allow, status, block, unblock
    }

    /// Runs one command on device `index` (`only`, or one at random), then
    /// checks what its shields did and what its history gained.
    func command(on index: Int, only: Command? = nil, crashing: SimulatedCrash? = nil) async throws {
        let device = devices[index]
        let ended = evidence.ended(in: device)
        let completedBefore = evidence.completed(by: device)
        let slotStamp = latestSlotStamp(in: device)
        let slotLog = device.data + "/devices/" + device.id + "/changes/session.jsonl"
        let slotBefore = SyncFabric.stamp(of: slotLog)
        // Chosen before it runs: whether it changes groups, and if so the
        // newest stamp of each group its folder holds.
        let command = only ?? random.weighted([
            (14, Command.start), (6, .stop), (4, .cancel), (5, .pause), (5, .resume), (3, .allow), (16, .status), (3, .block), (2, .unblock),
        ])
        let groupStamps = command == .block || command == .unblock ? FleetEvidence.groupStamps(in: device) : [:]
        _ = device.shieldLog.drain()
        var outcome: String
        let before = model
        do {
            outcome = try await SimulatedCrash.$plan.withValue(crashing) { try await perform(command, on: device) }
        } catch {
            outcome = "refused: " + describe(error)
            if crashing?.crashed != true { judge(error, of: command, on: device) }
        }
        // Killed mid-way, it acknowledged nothing, and may have done any
        // part of its work: the target it was about may or may not be
        // there, and every session that may run may have been stopped,
        // paused or contested by it.
        if crashing?.crashed == true {
            let attempted = model.attemptedTarget, next = model.nextTarget
            model = before
            model.nextTarget = next
            if let attempted {
                model.blocked.remove(attempted)
                model.unblocked.remove(attempted)
            }
            for id in model.sessions.keys where !(model.sessions[id]!.stopped || model.sessions[id]!.cancelled) { model.touched(id) }
            // A start killed after it wrote its session left a session that
            // runs (its block raised by the next command): known from now on.
            if command == .start, let written = FleetEvidence.lastSlotValue(of: device), model.sessions[written.id] == nil {
                model.sessions[written.id] = FleetModel.SessionFact(id: written.id, device: index, plannedEnd: written.plannedEnd,
                                                                    strict: written.strict, startedAt: ordered, touched: true)
            }
            outcome += " (killed at a write)"
        }
        model.attemptedTarget = nil
        note("m\(index) \(command.rawValue): \(outcome)")
        // A command takes a moment: no two of a device's writes share a
        // boot-time reading (a clock moved between two of them is told
        // apart by that reading, `PeerClocks.newestMark`).
        passes(0.001)
        fabric.lastCommand[index] = ordered
        if SyncFabric.stamp(of: slotLog) != slotBefore { fabric.lastSlotWrite[index] = ordered }
        for entry in device.shieldLog.drain() {
            switch entry {
            case .raise(let session):
                if ended.contains(session.description) {
                    violated(.endedStaysEnded, "m\(index) raised the block of \(session), which its folder showed ended")
                }
            case .lower(let session):
                checkNotEarly(session.description, by: index, what: "lowered the block of")
            }
        }
        for id in evidence.completed(by: device).subtracting(completedBefore) {
            checkNotEarly(id, by: index, what: "recorded as completed")
        }
        checkStamps(of: device, slotStampBefore: slotStamp)
        if command == .block || command == .unblock { checkGroupStamps(of: device, before: groupStamps) }
    }

    /// The latest stamp (its wall part, ms) of any slot line in a device's
    /// folder, its own and every other device's.
    func latestSlotStamp(in device: FleetDevice) -> Double {
        evidence.latestSlotStamp(in: device)
    }

    /// A device's own changes of groups stay within a day of its clock,
    /// but for a change of a group some device had stamped later still
    /// (year 4821, a clock days ahead), which is stamped after that
    /// (`HybridClock.tick(after:)`): another record's far stamp is not this
    /// device's clock (the horizon). `before`: each group's newest stamp
    /// (ms) in the device's folder before the command.
    func checkGroupStamps(of device: FleetDevice, before: [String: Double]) {
        let limit = (device.clock.now().timeIntervalSince1970 + 86_400) * 1_000
        let lines = FleetEvidence.objects(device.data + "/devices/" + device.id + "/changes/groups.jsonl")
        let checked = model.stampedGroupLines[device.index] ?? 0
        model.stampedGroupLines[device.index] = lines.count
        for object in lines.dropFirst(lines.count >= checked ? checked : 0) {
            guard let key = object["key"] as? String, let at = object["at"] as? String, let milliseconds = Double(at.prefix { $0 != "-" }),
                  milliseconds > max(limit, (before[key] ?? 0) + 1) else { continue }
            violated(.stampsStayNearTheClock, "m\(device.index) stamped a change of group \(key) \(at), its clock reads \(device.clock.now())")
            return
        }
    }

    /// The stamps of a device's own session slot log stay within a day of
    /// its clock (no other device's far stamp taken for its own).
    func checkStamps(of device: FleetDevice, slotStampBefore: Double) {
        // A change of the slot orders after the slot's last change, however
        // far ahead another device stamped that: such a stamp is allowed.
        let limit = max((device.clock.now().timeIntervalSince1970 + 86_400) * 1_000, slotStampBefore + 1)
        let lines = FleetEvidence.objects(device.data + "/devices/" + device.id + "/changes/session.jsonl")
        // Only the lines this command wrote: a clock set back leaves the
        // earlier ones ahead of it, rightly.
        let checked = model.stampedLines[device.index] ?? 0
        model.stampedLines[device.index] = lines.count
        for object in lines.dropFirst(lines.count >= checked ? checked : 0) {
            guard let at = object["at"] as? String, let milliseconds = Double(at.prefix { $0 != "-" }) else { continue }
            if milliseconds > limit {
                violated(.stampsStayNearTheClock, "m\(device.index) stamped its slot \(at), its clock reads \(device.clock.now())")
                return
            }
        }
    }

    /// A session that nobody touched ends on its planned end as its own
    /// device's clock reads it, give or take the minute two clocks may
    /// differ by and still agree.
    func checkNotEarly(_ id: String, by index: Int, what: String) {
        guard let fact = model.sessions[id], !fact.touched, !fact.completed, let plannedEnd = fact.plannedEnd else { return }
        defer { if what == "recorded as completed" { model.sessions[id]?.completed = true } }
        // The other device's clock moved since the newest of its files
        // this one has: no device can know how far until it writes again
        // (semantics.md, "Clocks"). What follows from that ending (the
        // others lowering their blocks) is excused with it.
        if index != fact.device, let moved = model.clockMoved[fact.device],
           moved >= fabric.received[index][fact.device]?.writtenAt ?? .distantPast {
            model.touched(id)
            return
        }
        // This device's clock moved after some of those files came: until
        // it has looked at another device's session since, it cannot tell
        // by how much (docs/storage.md, "Clocks").
        if index != fact.device, let moved = model.clockMoved[index], moved >= fabric.firstReceived[index][fact.device] ?? .distantFuture {
            model.touched(id)
            return
        }
        let startersClock = trueTime.addingTimeInterval(skews[fact.device])
        if startersClock < plannedEnd.addingTimeInterval(-61) {
            violated(.noEarlyEnd, "m\(index) \(what) \(id) (started on m\(fact.device)) "
                + "\(Int(plannedEnd.timeIntervalSince(startersClock)))s before its planned end on m\(fact.device)'s clock")
        }
    }

    /// What a command did, in a few words; its acknowledgments go into the model.
    private func perform(_ command: Command, on device: FleetDevice) async throws -> String {
        switch command {
        case .start:
            let strict = random.chance(30)
            let length = random.weighted([(2, 45.0), (3, 300.0), (3, 1_500.0), (2, 3_600.0), (1, 7_200.0)])
            let group = random.chance(80) ? "work" : "news"
            let receipt = try await device.command {
                try await $0.resolve(StartSessionUseCase.self).execute(SessionPlan(groupName: group, length: .duration(length), strict: strict))
            }
            let session = receipt.session
            // Another session this device had not seen started contests
            // this one, and this one it: one rule ends one of them early.
            // (Whether it still runs, no device can tell for sure: a copy
            // that comes late looks like a clock that runs behind.)
            // One that ended elsewhere contests it too while this device
            // has not seen it end: a copy of that device's log from before
            // the end may come first.
            var contested = false
            for (id, fact) in model.sessions where fact.device != device.index {
                func seen(_ by: Int, since instant: Date) -> Bool {
                    (fabric.received[device.index][by]?.writtenAt ?? .distantPast) >= instant
                }
                let clock = trueTime.addingTimeInterval(skews[fact.device])
                // Its clock moved since the last of its files this device
                // has: this device cannot know by how much, and may take
                // it as running still.
                let moved = model.clockMoved[fact.device].map { $0 >= fabric.received[device.index][fact.device]?.writtenAt ?? .distantPast } ?? false
                // Judged here by the slower of the two clocks (`SessionClocks`:
                // a starter's clock ahead of this one's is not taken at its
                // word), so a fast device's session runs on here past its
                // end there, until its completion arrives.
                let judge = min(clock, device.clock.now())
                let running = moved || (fact.plannedEnd.map { judge < $0.addingTimeInterval(61) } ?? true)
                let seenEnd = fact.ended.map { seen($0.by, since: $0.at) } ?? false
                let ended = fact.stopped || fact.cancelled
                if ended ? !seenEnd && (!seen(fact.device, since: fact.startedAt) || running) : (!seen(fact.device, since: fact.startedAt) || running) {
                    model.touched(id)
                    contested = true
                }
            }
            model.sessions[session.id.description] = FleetModel.SessionFact(
                id: session.id.description, device: device.index, plannedEnd: session.plannedEnd, strict: strict, startedAt: ordered,
                touched: contested)
            return "started \(session.id) \(strict ? "strict " : "")for \(Int(length))s"
        case .stop:
            let receipt = try await device.command { try await $0.resolve(StopSessionUseCase.self).execute() }
            model.touched(receipt.session.id.description)
            model.sessions[receipt.session.id.description]?.stopped = true
            model.sessions[receipt.session.id.description]?.ended = (device.index, ordered)
            return "stopped \(receipt.session.id)"
        case .cancel:
            let (receipt, _) = try await device.command { try await $0.resolve(CancelSessionUseCase.self).execute() }
            model.touched(receipt.session.id.description)
            model.sessions[receipt.session.id.description]?.cancelled = true
            model.sessions[receipt.session.id.description]?.ended = (device.index, ordered)
            return "cancelled \(receipt.session.id)"
        case .pause:
            let receipt = try await device.command { try await $0.resolve(PauseSessionUseCase.self).execute() }
            model.touched(receipt.session.id.description)
            return "paused \(receipt.session.id)"
        case .resume:
            let receipt = try await device.command { try await $0.resolve(ResumeSessionUseCase.self).execute() }
            model.touched(receipt.session.id.description)
            return "resumed \(receipt.session.id)"
        case .allow:
            let receipt = try await device.command { try await $0.resolve(AllowUseCase.self).allow("news", for: 60) }
            model.touched(receipt.session.id.description)
            return "allowed \(receipt.session.id) for 60s"
        case .status:
            let observing = observations != nil
            let (status, seen) = try await device.command { container in
                let status = try await container.resolve(SessionStatusUseCase.self).execute()
                return (status, observing ? try await Self.observe(container) : nil)
            }
            if observing { observations?[device.index] = seen }
            return status.map { "\($0.session.id) \($0.session.isPaused ? "paused" : "running")" } ?? "no session"
        case .block:
            model.nextTarget += 1
            // Mostly the group a far stamp may have touched, else the other
            // (whose changes must stay near this device's clock).
            let group = random.chance(75) ? "work" : "news"
            let target = (group == "work" ? "t" : "n") + "\(model.nextTarget).test"
            model.attemptedTarget = target
            _ = try await device.command(reconciling: true) {
                try await $0.resolve(BlockTargetsUseCase.self).execute(group: group, targets: [target])
            }
            model.blocked.insert(target)
            return "blocked \(target)"
        case .unblock:
            let candidates = model.blocked.filter { $0.hasPrefix("t") || $0.hasPrefix("n") && $0 != "news.test" }.sorted()
            guard !candidates.isEmpty else { return "nothing to unblock" }
            let target = candidates[random.below(candidates.count)]
            model.attemptedTarget = target
            _ = try await device.command(reconciling: true) {
                try await $0.resolve(UnblockTargetsUseCase.self).execute(group: target.hasPrefix("t") ? "work" : "news", targets: [target])
            }
            model.blocked.remove(target)
            model.unblocked.insert(target)
            return "unblocked \(target)"
        }
    }

    /// A refusal the contract has a code for is fine; a failure of the
    /// store, or anything else, is not.
    private func judge(_ error: any Error, of command: Command, on device: FleetDevice) {
        if let store = error as? StoreError {
            let path = store.path ?? ""
            let own = path.contains("/devices/" + device.id) || path.contains("/history/" + device.id)
            violated(own ? .commandsWork : .peerDamageIsNotMine, "m\(device.index) \(command.rawValue) failed: \(store)")
            return
        }
        if let retime = error as? any RetimeError, retime.kind != .storage { return }
        violated(.commandsWork, "m\(device.index) \(command.rawValue) failed: \(error)")
    }

    func describe(_ error: any Error) -> String {
        (error as? any RetimeError)?.code ?? "\(error)"
    }
}
