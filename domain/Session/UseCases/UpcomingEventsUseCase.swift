import Foundation

/// The coming interval events of every enabled schedule, in time order.
public struct UpcomingEventsUseCase: Sendable {
    private let schedules: any ScheduleRepository
    private let calendar: IntervalCalendar

    public init(schedules: any ScheduleRepository, calendar: IntervalCalendar) {
        self.schedules = schedules
        self.calendar = calendar
    }

    public func execute(from: Date, count: Int) async throws -> [IntervalEvent] {
        calendar.upcomingEvents(of: try await schedules.all(), from: from, count: count)
    }
}
