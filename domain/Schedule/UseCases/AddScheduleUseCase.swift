import FoundationEssentials
import RetimeSession
import RetimeShared

/// Adds a schedule after checking everything about it: a valid, unused
/// name; an existing group; times that make an interval; days; a warning
/// lead from 0 to 24 hours.
public struct AddScheduleUseCase: Sendable {
    /// What the user asks for, as text where the user typed text.
    public struct Request: Sendable {
        public var name: String
        public var groupName: String
        public var from: String
        public var to: String
        public var days: String
        public var warnSeconds: TimeInterval
        public var strict: Bool
        /// The focus cycle its sessions run (a fixed one: WORK/BREAK[/LONG]).
        public var cycle: Cycle?
        /// The allowance its sessions carry for the group (1 s to 24 h).
        public var allowance: TimeInterval?

        public init(name: String, groupName: String, from: String, to: String, days: String = "daily",
                    warnSeconds: TimeInterval = 0, strict: Bool = false, cycle: Cycle? = nil) {
            self.cycle = cycle
            self.name = name
            self.groupName = groupName
            self.from = from
            self.to = to
            self.days = days
            self.warnSeconds = warnSeconds
            self.strict = strict
        }
    }

    private let schedules: any ScheduleRepository
    private let groups: any SessionGroupLookup
    private let dataLock: any DataLock
    /// Judges pending removals: a schedule whose removal has taken effect
    /// no longer holds its name (nil: as stored).
    private let clock: (any Clock)?

    public init(schedules: any ScheduleRepository, groups: any SessionGroupLookup, dataLock: any DataLock, clock: (any Clock)? = nil) {
        self.schedules = schedules
        self.groups = groups
        self.dataLock = dataLock
        self.clock = clock
    }

    /// Whether a schedule from elsewhere (a backup) keeps the rules `add`
    /// checks: a valid name as written, an interval, days, a warning of 0 s
    /// to 24 h, a fixed cycle if any.
    public static func keepsRules(_ schedule: Schedule) -> Bool {
        guard case .success(let name) = NameRules.check(schedule.name), name == schedule.name else { return false }
        return schedule.from != schedule.to && !schedule.weekdays.isEmpty
            && schedule.warnSeconds.isFinite && (0...86_400).contains(schedule.warnSeconds)
            && schedule.cycle.map { !$0.isFlow && (try? $0.validated()) != nil } ?? true
            && schedule.allowance.map { $0.isFinite && (1...86_400).contains($0) } ?? true
    }

    /// The schedule added, with the name its group has (as stored, not as typed).
    public func execute(_ request: Request) async throws -> NamedSchedule {
        let name: String
        switch NameRules.check(request.name) {
        case .success(let valid): name = valid
        case .failure(let problem): throw ScheduleError.invalidName(request.name, reason: problem.description)
        }
        guard let from = TimeOfDay(parsing: request.from) else { throw ScheduleError.invalidTime(request.from) }
        guard let to = TimeOfDay(parsing: request.to) else { throw ScheduleError.invalidTime(request.to) }
        guard from != to else { throw ScheduleError.emptyInterval }
        guard let days = Weekday.parseSet(request.days), !days.isEmpty else { throw ScheduleError.invalidDays(request.days) }
        guard request.warnSeconds.isFinite, (0...86_400).contains(request.warnSeconds) else {
            throw ScheduleError.invalidWarning("a warning comes from 0 seconds to 24 hours ahead")
        }
        guard request.cycle?.isFlow != true else { throw SessionError.invalidCycle("a schedule's cycle is WORK/BREAK[/LONG], not a flow") }
        let cycle = try request.cycle?.validated()
        if let allowance = request.allowance, !(allowance.isFinite && (1...86_400).contains(allowance)) {
            throw AllowanceError.invalidLength("a schedule's allowance is from 1s to 24h")
        }
        // The group is looked up under the lock its deletion takes: a schedule
        // never points at a group deleted in between.
        return try await dataLock.exclusively {
            guard let group = try await groups.groupID(named: request.groupName) else {
                throw ScheduleError.groupNotFound(name: request.groupName)
            }
            var schedule = Schedule(name: name, groupId: group, from: from, to: to, weekdays: days,
                                    warnSeconds: request.warnSeconds, strict: request.strict, cycle: cycle)
            schedule.allowance = request.allowance
            if let clock, let holder = try await schedules.schedule(named: name), holder.effective(at: clock.now()) == nil {
                try await schedules.delete(id: holder.id)
            }
            try await schedules.insert(schedule)
            let others = try await schedules.all().filter { other in clock.map { other.effective(at: $0.now()) != nil } ?? true }
            return NamedSchedule(schedule: schedule, groupName: try await groups.groupName(id: group),
                                 warnings: ScheduleAdvice.warnings(for: schedule, among: others))
        }
    }
}
