import FoundationEssentials
import RetimeSchedule
import RetimeSession
import RetimeShared

/// Gathers what `export` writes: the range's sessions, oldest first, with
/// every group, schedule and setting (a backup needs them all; CSV and
/// iCalendar use the groups' names and the schedules).
public struct ExportHistoryUseCase: Sendable {
    private let history: any SessionHistory
    private let groups: any SessionGroupLookup
    private let schedules: any ScheduleRepository
    private let settings: any SettingsStore
    private let clock: any Clock

    public init(history: any SessionHistory, groups: any SessionGroupLookup, schedules: any ScheduleRepository, settings: any SettingsStore,
                clock: any Clock) {
        self.history = history
        self.groups = groups
        self.schedules = schedules
        self.settings = settings
        self.clock = clock
    }

    public func execute(since: Date?, until: Date?) async throws -> Backup {
        Backup(sessions: try await history.sessions(matching: HistoryQuery(since: since, until: until)).reversed(),
               groups: try await groups.allGroups(), schedules: try await schedules.all(), settings: try await settings.all(),
               exportedAt: clock.now())
    }
}
