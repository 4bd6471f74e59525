import FoundationEssentials
import RetimeGroup
import RetimeShared
import RetimeSync

/// Starts a focus session on a group: validates the plan, records the session
/// and raises the shield before returning. If the shield cannot be raised,
/// the session is withdrawn, so no session claims a block that is not up.
public struct StartSessionUseCase: Sendable {
    private let sessions: any SessionRepository
    private let groups: any SessionGroupLookup
    private let shields: any ShieldDirectory
    private let clock: any Clock
    private let events: SessionEventPublisher
    private let active: ActiveSession
    private let dataLock: any DataLock
    private let settings: (any SettingsStore)?
    private let creator: (any ImportGroupDirectory)?
    private let devices: (any DeviceDirectory)?

    /// Without `settings` there is no default group; without `creator`, no
    /// group is ever created; without `devices`, sessions name no device.
    public init(sessions: any SessionRepository, groups: any SessionGroupLookup, shields: any ShieldDirectory,
                clock: any Clock, events: SessionEventPublisher, active: ActiveSession, dataLock: any DataLock,
                settings: (any SettingsStore)? = nil, creator: (any ImportGroupDirectory)? = nil, devices: (any DeviceDirectory)? = nil) {
        self.sessions = sessions
        self.groups = groups
        self.shields = shields
        self.clock = clock
        self.events = events
        self.active = active
        self.dataLock = dataLock
        self.settings = settings
        self.creator = creator
        self.devices = devices
    }

    /// Returns the session with its group's name and the targets blocked.
    public func execute(_ plan: SessionPlan) async throws -> SessionReceipt {
        // A block still up from an ended session makes the start fail with
        // its cause, not with "already active".
        try await execute(plan, after: try await active.reconcile(toleratingStuckBlock: false, sweeping: false))
    }

    /// The same, in a pass that has reconciled already (the daemon's): what
    /// that reconcile tolerated fails the start.
    public func execute(_ plan: SessionPlan, after reconciled: ActiveSession.Reconciled) async throws -> SessionReceipt {
        try reconciled.throwTolerated()
        // The group is read, the session recorded and its block raised under
        // the lock that deleting the group or removing its targets takes: a
        // session never starts on a deleted group, and a strict one never
        // blocks less than its group held when it began.
        let (session, group, now, shield) = try await dataLock.exclusively { try await begin(plan) }
        await events.session(.sessionStarted, session, at: now, group: group)
        let reach = await shield.reach(askingAboutApps: group.targets.contains { if case .app = $0 { true } else { false } })
        return SessionReceipt(session: session, groupName: group.name, targets: group.targets, reach: reach)
    }

    /// The plan's group, creating it when the plan names none (the default
    /// group) or says so, and it does not exist yet.
    private func group(of plan: SessionPlan) async throws -> BlockList {
        if let id = plan.groupId {
            guard let group = try await groups.blockList(id: id) else { throw SessionError.groupNotFound(name: id.description) }
            return group
        }
        let usesDefault = plan.groupName.isEmpty
        let name = usesDefault ? try await defaultGroupName() : plan.groupName
        if let group = try await groups.blockList(named: name) { return group }
        guard usesDefault || plan.createsGroup, let creator else { throw SessionError.groupNotFound(name: name) }
        if case .failure(let error) = try await creator.groups(for: [ImportGroupRequest(name: name)]).first { throw error }
        guard let created = try await groups.blockList(named: name) else { throw SessionError.groupNotFound(name: name) }
        return created
    }

    /// The cycle as configured: a flow's break ratio (`flow.breakRatio`),
    /// and whether its work waits for the user (`cycle.waitForActivity`).
    /// Read once, at the start: the session's phases are its own. A strict
    /// cycle never waits: its phases are fixed when it starts (semantics.md,
    /// "Cycles and allowances"), and the system service holds its block to
    /// those edges.
    private func configured(_ cycle: Cycle?, strict: Bool) async throws -> Cycle? {
        guard var cycle else { return nil }
        if cycle.isFlow, let text = try await settings?.value(for: SettingKey.flowBreakRatio.rawValue), let ratio = Double(text) {
            cycle = .flow(breakRatio: ratio)
        }
        if strict {
            cycle = cycle.waitingForActivity(false)
        } else if try await settings?.value(for: SettingKey.cycleWaitForActivity.rawValue) == "on" {
            cycle = cycle.waitingForActivity()
        }
        return cycle
    }

    private func defaultGroupName() async throws -> String {
        try await settings?.value(for: SettingKey.defaultGroup.rawValue) ?? SettingKey.defaultGroup.defaultValue(dataDirectory: "")
    }

    private func begin(_ plan: SessionPlan) async throws -> (Session, BlockList, Date, any Shield) {
        // Both clocks read together: the boot-time deadline is the planned
        // end on that clock only if nothing happened between the readings.
        let now = clock.now(), boot = clock.bootTime()
        let startedAt = plan.startAt.map { min($0, now) } ?? now
        guard now.timeIntervalSince(startedAt) <= SessionLength.allowed.upperBound else {
            throw SessionError.invalidTimes("a session starts at most 24 hours ago")
        }
        let (plannedEnd, cycle) = try Self.timeline(of: plan, cycle: try await configured(plan.cycle, strict: plan.strict)?.validated(), from: startedAt)
        if plan.strict && plannedEnd == nil { throw SessionError.strictNeedsEnd }
        if plan.strict, case .untilTimeOfDay(let end) = plan.length, end.timeIntervalSince(now) > SessionLength.strictTimeOfDayHorizon {
            throw SessionError.strictUntilFarAhead(end)
        }
        let tags = try plan.validatedTags()
        let note = try plan.validatedNote()
        let group = try await group(of: plan)
        let bootDeadline = plan.strict ? zip(boot, plannedEnd).map { boot, end in
            BootTimeReading(bootID: boot.bootID, seconds: boot.seconds + end.timeIntervalSince(now))
        } : nil
        let shield = try shields.configured()
        // A device id that cannot be read does not stop a focus session: the
        // session then names no device, and `doctor` reports the id file.
        let device = try? devices?.thisDevice()
        var session = Session(id: plan.id ?? SessionID(), groupId: group.groupId, startedAt: startedAt, plannedEnd: plannedEnd, strict: plan.strict,
                              tags: tags, note: note, origin: plan.origin, bootDeadline: bootDeadline, shield: shield.identity,
                              groupName: group.name, device: device, cycle: cycle, startReading: boot)
        // A strict session keeps its group's allowance as it starts: it
        // cannot be raised during the session, and the system service
        // keeps it with the block (semantics.md, "Cycles and allowances").
        session.dailyAllowance = plan.allowance ?? (plan.strict ? group.allowance : nil)
        // A strict session holds its targets to its end, whatever its group
        // loses on a device that has not seen the session.
        session = session.holding(group.targets)
        // The unlock rule holds for the session's whole life (pauses too).
        // (Without settings, as in tests of other things, none is recorded.)
        if plan.strict, let settings { session.unlock = try await StrictUnlock.configured(in: settings, logger: nil) }
        guard try await sessions.replace(nil, with: session) else {
            let current = try await sessions.current()
            throw SessionError.alreadyActive(current?.id ?? session.id, until: current?.plannedEnd)
        }
        do {
            try await shield.guarded { try await $0.raise(group.targets, for: session) }
        } catch {
            _ = try? await sessions.replace(session, with: nil)
            throw error
        }
        return (session, group, now, shield)
    }
}

extension StartSessionUseCase {
    /// The planned end and the cycle the session runs. A fixed cycle's
    /// session ends with its last work phase (N x WORK plus the breaks
    /// between); given a length too (a schedule's interval, which `start`
    /// does not offer), the cycle fits its rounds into it
    /// (`Cycle.fitted`). A flow ends at its length, if it has one.
    static func timeline(of plan: SessionPlan, cycle: Cycle?, from start: Date) throws(SessionError) -> (Date?, Cycle?) {
        guard let cycle, let length = cycle.length else { return (try plan.length.plannedEnd(from: start), cycle) }
        if plan.length != .openEnded {
            let end = try plan.length.plannedEnd(from: start)
            return (end, end.map { cycle.fitted(to: $0.timeIntervalSince(start)) } ?? cycle)
        }
        guard SessionLength.allowed.contains(length) else { throw .invalidCycle("the whole cycle lasts at most 24 hours") }
        return (start.addingTimeInterval(length), cycle)
    }
}

/// Both values, or nil if either is missing.
private func zip<A, B>(_ a: A?, _ b: B?) -> (A, B)? {
    guard let a, let b else { return nil }
    return (a, b)
}
