import Foundation

/// Builds a report from ended sessions, pure. Focused time is split where
/// it crosses a bucket's boundary (a session from 23:30 to 00:30 gives half
/// an hour to each day); a session is counted in the bucket it started in.
/// Day and week buckets run without gaps from the first to the last (or
/// over `since..<until` when given), so a chart shows the empty days too.
public struct ReportBuilder {
    private let days: LocalDays
    private let grouping: ReportGrouping
    private let groupNames: [GroupID: String]

    public init(grouping: ReportGrouping, timeZone: TimeZone, groupNames: [GroupID: String]) {
        self.grouping = grouping
        self.days = LocalDays(timeZone: timeZone)
        self.groupNames = groupNames
    }

    public func build(_ sessions: [Session], since: Date?, until: Date?) -> Report {
        var buckets: [String: Report.Bucket] = [:]
        var firstDay = Int64.max, lastDay = Int64.min
        for session in sessions {
            guard let end = session.endedAt else { continue }
            let startKey = key(forDay: grouping == .group ? 0 : days.day(of: session.startedAt), session)
            buckets[startKey, default: .init(key: startKey)].sessions += 1
            if session.outcome == .completed { buckets[startKey]!.completed += 1 }
            if session.outcome == .stopped { buckets[startKey]!.stopped += 1 }
            for (from, to) in focusedStretches(of: session, endingAt: end) {
                if grouping == .group {
                    buckets[startKey]!.focusedSeconds += to.timeIntervalSince(from)
                    continue
                }
                // Walk the stretch day by day, cutting at each local midnight.
                var cursor = from
                var day = days.day(of: from)
                firstDay = min(firstDay, day)
                while cursor < to {
                    let next = min(to, days.start(of: day + 1))
                    let key = key(forDay: day, session)
                    buckets[key, default: .init(key: key)].focusedSeconds += next.timeIntervalSince(cursor)
                    cursor = next
                    lastDay = max(lastDay, day)
                    day += 1
                }
            }
            if grouping != .group {
                let startDay = days.day(of: session.startedAt)
                firstDay = min(firstDay, startDay)
                lastDay = max(lastDay, startDay)
            }
        }
        return Report(since: since, until: until, grouping: grouping, buckets: ordered(buckets, firstDay, lastDay, since, until))
    }

    /// The session's time between its start and end, minus its breaks.
    private func focusedStretches(of session: Session, endingAt end: Date) -> [(Date, Date)] {
        var stretches: [(Date, Date)] = []
        var cursor = session.startedAt
        for pause in session.breaks.sorted(by: { $0.start < $1.start }) {
            let pauseEnd = min(pause.end ?? end, end)
            if pause.start > cursor { stretches.append((cursor, min(pause.start, end))) }
            cursor = max(cursor, pauseEnd)
        }
        if end > cursor { stretches.append((cursor, end)) }
        return stretches
    }

    private func key(forDay day: Int64, _ session: Session) -> String {
        switch grouping {
        case .day: LocalDays.label(day)
        case .week: LocalDays.weekLabel(day)
        case .group: groupNames[session.groupId] ?? "(deleted group)"
        }
    }

    /// Days and weeks in time order with the gaps filled; groups by focused time, most first.
    private func ordered(_ buckets: [String: Report.Bucket], _ firstDay: Int64, _ lastDay: Int64,
                         _ since: Date?, _ until: Date?) -> [Report.Bucket] {
        guard grouping != .group else {
            return buckets.values.sorted { ($0.focusedSeconds, $1.key) > ($1.focusedSeconds, $0.key) }
        }
        let first = since.map { days.day(of: $0) } ?? firstDay
        let last = until.map { days.day(of: $0.addingTimeInterval(-0.000_001)) } ?? lastDay
        guard first <= last else { return buckets.values.sorted { $0.key < $1.key } }
        var keys: [String] = []
        var day = grouping == .week ? LocalDays.mondayOfWeek(first) : first
        while day <= last {
            keys.append(grouping == .week ? LocalDays.weekLabel(day) : LocalDays.label(day))
            day += grouping == .week ? 7 : 1
        }
        // A session's focused time may run past `until` into a later bucket: keep those too.
        let known = Set(keys)
        let extra = buckets.keys.filter { !known.contains($0) }
        return (keys + extra).sorted().map { buckets[$0] ?? .init(key: $0) }
    }
}
