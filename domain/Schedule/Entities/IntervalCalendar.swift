import FoundationEssentials
import RetimeShared
import Synchronization

/// The calendar maths of schedules, pure: which interval instances a
/// schedule has and when their events fire, in one time zone.
///
/// Local times follow the zone's rules (semantics.md): a time that falls in
/// a spring-forward gap resolves to the first valid instant after it (the
/// transition itself); one that occurs twice in a fall-back overlap resolves
/// to its first occurrence. Instances are enumerated by local day, so DST
/// never skips or doubles one.
public struct IntervalCalendar: Sendable {
    private let zone: ZoneSource

    /// The zone every local time is read in.
    public var timeZone: TimeZoneRules { zone.value }

    public init(timeZone: TimeZoneRules) {
        zone = ZoneSource(fixed: timeZone)
    }

    /// A calendar in the zone `lookUp` returns, called once, on first use:
    /// finding the local zone reads a file, which commands that never read
    /// a local time should not pay for.
    public init(lookingUp lookUp: @escaping @Sendable () -> TimeZoneRules) {
        zone = ZoneSource(lookUp)
    }

    /// The instance of `schedule` that starts on local day `day` (days since
    /// 1970-01-01), if the schedule runs that weekday.
    public func instance(of schedule: Schedule, onDay day: Int64) -> IntervalInstance? {
        instance(of: schedule, onDay: day, offsets: OffsetCache(timeZone: timeZone))
    }

    func instance(of schedule: Schedule, onDay day: Int64, offsets: OffsetCache) -> IntervalInstance? {
        guard schedule.weekdays.contains(Weekday(daysSinceEpoch: day)) else { return nil }
        let start = resolve(localSeconds: day * 86_400 + Int64(schedule.from.secondsOfDay), offsets: offsets)
        let endDay = schedule.crossesMidnight ? day + 1 : day
        let end = resolve(localSeconds: endDay * 86_400 + Int64(schedule.to.secondsOfDay), offsets: offsets)
        return IntervalInstance(scheduleId: schedule.id, day: Self.label(day), start: start, end: max(start, end))
    }

    /// The events of one instance, in order; warnings only with a lead time,
    /// the end warning clamped to the start.
    public func events(of schedule: Schedule, _ instance: IntervalInstance) -> [IntervalEvent] {
        var events = [IntervalEvent(schedule: schedule, kind: .intervalDidStart, at: instance.start, interval: instance)]
        if schedule.warnSeconds > 0 {
            events.insert(IntervalEvent(schedule: schedule, kind: .intervalWillStartWarning,
                                        at: instance.start - schedule.warnSeconds, interval: instance), at: 0)
            events.append(IntervalEvent(schedule: schedule, kind: .intervalWillEndWarning,
                                        at: max(instance.start, instance.end - schedule.warnSeconds), interval: instance))
        }
        events.append(IntervalEvent(schedule: schedule, kind: .intervalDidEnd, at: instance.end, interval: instance))
        // A pending removal or disabling takes effect at the end of the
        // interval it waited for: nothing of the schedule comes after.
        if let pending = schedule.pending { return events.filter { $0.at <= pending.effectiveAt } }
        return events
    }

    /// The first `count` events at or after `from`, over every enabled
    /// schedule, in order.
    public func upcomingEvents(of schedules: [Schedule], from: Date, count: Int) -> [IntervalEvent] {
        guard count > 0 else { return [] }
        // The best `count` so far, in order: a bounded insertion rather than
        // a sort of everything (the daemon asks for one among thousands).
        var best: [IntervalEvent] = []
        best.reserveCapacity(count + 1)
        let offsets = OffsetCache(timeZone: timeZone)
        let firstDay = localDay(of: from) - 2   // a warning or a midnight crossing reaches back
        for schedule in schedules where schedule.enabled && !schedule.weekdays.isEmpty {
            var found = 0
            var day = firstDay
            // `count` events of one schedule need at most count days of instances, plus a week of gaps.
            while found < count, day <= firstDay + Int64(count) + 9 {
                if let instance = instance(of: schedule, onDay: day, offsets: offsets) {
                    for event in events(of: schedule, instance) where event.at >= from {
                        found += 1
                        if best.count == count, let worst = best.last, !IntervalEvent.precedes(event, worst) { continue }
                        let position = best.firstIndex { IntervalEvent.precedes(event, $0) } ?? best.endIndex
                        best.insert(event, at: position)
                        if best.count > count { best.removeLast() }
                    }
                }
                day += 1
            }
        }
        return best
    }

    /// `2026-11-23` for a day counted from 1970-01-01.
    static func label(_ day: Int64) -> String {
        let (year, month, date) = Timestamp.civil(fromDays: day)
        func two(_ value: Int64) -> String { value < 10 ? "0\(value)" : "\(value)" }
        return "\(year)-\(two(month))-\(two(date))"
    }

    /// The local day (days since 1970-01-01) an instant falls on.
    public func localDay(of instant: Date) -> Int64 {
        let local = Int64((instant.timeIntervalSince1970 + Double(offset(at: instant.timeIntervalSince1970))).rounded(.down))
        return local >= 0 ? local / 86_400 : (local - 86_399) / 86_400
    }

    /// The instant of a local wall time given as seconds since the local
    /// epoch, by the rules above.
    func resolve(localSeconds local: Int64, offsets: OffsetCache) -> Date {
        // Most days have no transition near them: one offset, no search.
        if let steady = offsets.steadyOffset(onLocalDay: local >= 0 ? local / 86_400 : (local - 86_399) / 86_400) {
            return Date(timeIntervalSince1970: Double(local - Int64(steady)))
        }
        let wall = Double(local)
        let offsets = Set([offset(at: wall - 86_400), offset(at: wall), offset(at: wall + 86_400)])
        let valid = offsets.map { wall - Double($0) }.filter { offset(at: $0) == Int(wall - $0) }
        if let first = valid.min() { return Date(timeIntervalSince1970: first) }
        // A gap: the wall time is skipped. The transition lies between the
        // instants the two offsets give; find it to the second.
        let candidates = offsets.map { wall - Double($0) }
        var low = candidates.min()!, high = candidates.max()!
        let before = offset(at: low)
        while high - low > 1 {
            let middle = ((low + high) / 2).rounded(.down)
            if offset(at: middle) == before { low = middle } else { high = middle }
        }
        return Date(timeIntervalSince1970: high)
    }

    private func offset(at unixSeconds: Double) -> Int {
        timeZone.offset(atSecond: Int64(unixSeconds.rounded(.down)))
    }
}

/// Remembers, per local day, whether the zone keeps one offset from two days
/// before it to two days after it, and which: a thousand schedules share
/// the same few days.
final class OffsetCache {
    private let timeZone: TimeZoneRules
    private var days: [Int64: Int?] = [:]

    init(timeZone: TimeZoneRules) { self.timeZone = timeZone }

    /// The day's one offset, or nil if an offset change is near.
    func steadyOffset(onLocalDay day: Int64) -> Int? {
        if let known = days[day] { return known }
        let before = timeZone.offset(atSecond: (day - 2) * 86_400)
        let after = timeZone.offset(atSecond: (day + 3) * 86_400)
        let steady: Int? = before == after && noChange(between: day - 2, and: day + 3, offset: before) ? before : nil
        days[day] = steady
        return steady
    }

    /// No two changes that cancel out inside the window: checks each day's start.
    private func noChange(between first: Int64, and last: Int64, offset: Int) -> Bool {
        (first...last).allSatisfy { timeZone.offset(atSecond: $0 * 86_400) == offset }
    }
}

/// A time zone known now or looked up once when first needed.
private final class ZoneSource: Sendable {
    private let lookUp: @Sendable () -> TimeZoneRules
    private let found = Mutex<TimeZoneRules?>(nil)

    init(fixed: TimeZoneRules) {
        lookUp = { fixed }
        found.withLock { $0 = fixed }
    }

    init(_ lookUp: @escaping @Sendable () -> TimeZoneRules) {
        self.lookUp = lookUp
    }

    var value: TimeZoneRules {
        found.withLock { zone in
            if let zone { return zone }
            let looked = lookUp()
            zone = looked
            return looked
        }
    }
}
