import FoundationEssentials
import RetimeShared

/// The coming interval events of every enabled schedule, in time order.
public struct UpcomingEventsUseCase: Sendable {
    private let schedules: any ScheduleRepository
    private let calendar: IntervalCalendar
    private let clock: any Clock

    public init(schedules: any ScheduleRepository, calendar: IntervalCalendar, clock: any Clock) {
        self.schedules = schedules
        self.calendar = calendar
        self.clock = clock
    }

    /// The next `count` events from `from` (now when nil).
    public func execute(from: Date? = nil, count: Int) async throws -> [IntervalEvent] {
        calendar.upcomingEvents(of: try await schedules.all(), from: from ?? clock.now(), count: count)
    }
}
