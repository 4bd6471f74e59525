import Adapters
import Domain
import Foundation
import PortContracts
import Testing

/// Two devices whose daemons both start a schedule's interval record one
/// session in history, not two (issue 31, item 6).
@Suite struct ScheduledSessionIDTests {
    @Test func aNameBasedUUIDIsVersion5AsRFC9562DefinesIt() {
        // uuid5(NAMESPACE_DNS, "python.org"), as Python's uuid module gives it.
        let dns: [UInt8] = [0x6b, 0xa7, 0xb8, 0x10, 0x9d, 0xad, 0x11, 0xd1, 0x80, 0xb4, 0x00, 0xc0, 0x4f, 0xd4, 0x30, 0xc8]
        #expect(NameBasedUUID.make(namespace: dns, name: "python.org").uuidString.lowercased() == "886313e1-3b8a-5372-9b90-0c9aee199e5d")
    }

    @Test func oneIntervalOneIdAnotherIntervalAnother() {
        let schedule = ScheduleID(), start = Date(timeIntervalSince1970: 1_800_000_000)
        #expect(ScheduledSessionID.of(schedule: schedule, intervalStart: start) == ScheduledSessionID.of(schedule: schedule, intervalStart: start))
        #expect(ScheduledSessionID.of(schedule: schedule, intervalStart: start) != ScheduledSessionID.of(schedule: schedule, intervalStart: start + 86_400))
        #expect(ScheduledSessionID.of(schedule: schedule, intervalStart: start) != ScheduledSessionID.of(schedule: ScheduleID(), intervalStart: start))
    }

    /// Two devices share one schedule (same id); each daemon starts its
    /// interval, one on time and one 20 minutes late (it was asleep), and
    /// ends it. Their sessions share an id, and one history holding both
    /// devices' lines holds the interval once.
    @Test func twoDevicesDaemonsRecordTheIntervalOnce() async throws {
        let shared = ScheduleID()
        var ended: [Session] = []
        for start in ["2026-11-23T08:00:00Z", "2026-11-23T09:20:00Z"] {
            let daemon = try await DaemonWorld(at: start)
            try await daemon.schedules.insert(Schedule(id: shared, name: "m", groupId: daemon.world.work.id, from: TimeOfDay(parsing: "09:00")!,
                                                       to: TimeOfDay(parsing: "10:00")!, weekdays: Set(Weekday.allCases), warnSeconds: 0,
                                                       strict: false))
            _ = try await daemon.run(until: "2026-11-23T11:00:00Z")
            ended.append(try #require(try await daemon.world.ended.first))
        }
        #expect(ended[0].startedAt != ended[1].startedAt, "the late daemon's session began when it woke")
        #expect(ended[0].id == ended[1].id)
        #expect(ended[0].id == ScheduledSessionID.of(schedule: shared, intervalStart: Timestamp.parse("2026-11-23T09:00:00Z")!))
        let history = InMemorySessionHistory()
        for session in ended { try await history.append(session) }
        #expect(try await history.sessions(matching: .all).count == 1)
    }
}
