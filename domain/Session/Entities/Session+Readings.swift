import FoundationEssentials
import RetimeShared

/// Where a sleep that nothing heard is placed (docs/desktop.md, "Away
/// time"). The clocks say how long the machine slept between two readings
/// of one boot, not when: a sleep noticed at a later reading lies between
/// the last reading before it and the noticing. The session keeps that
/// last reading (`lastReading`), refreshed by the processes that look at
/// it (any command, a status bar's follower, the daemon's pass) at most
/// every `readingInterval` of the machine's time, and at every noticing.
extension Session {
    /// How old the last reading may grow before a process that looks at
    /// the session records a new one: a write every ten minutes at most
    /// while something looks, so a sleep is placed within ten minutes of
    /// when it began; a process that only reads (a follower's minute line)
    /// writes no more often than that.
    public static let readingInterval: TimeInterval = 600

    /// The last reading this boot has of the session: the one recorded,
    /// else the start's.
    func lastReading(in boot: BootTimeReading) -> ClockReading? {
        if let last = lastReading, last.boot.bootID == boot.bootID, last.at >= startedAt { return last }
        guard let start = startReading, start.bootID == boot.bootID else { return nil }
        return ClockReading(at: startedAt, boot: start)
    }

    /// The session with the clocks read at `now` as its last reading, when
    /// the one it has is `readingInterval` old on the boot-time clock (which
    /// a wall clock set back does not fool); the same session otherwise,
    /// and when `boot` is not the session's boot (another device, a reboot).
    public func stampingReading(at now: Date, boot: BootTimeReading?) -> Session {
        guard isActive, let boot, let last = lastReading(in: boot),
              boot.seconds - last.boot.seconds >= Self.readingInterval else { return self }
        var next = self
        next.lastReading = ClockReading(at: now, boot: boot)
        return next
    }

    /// Where `missing` seconds of sleep no stretch holds go, noticed by the
    /// clocks read as `boot`, within the session up to `end`. The sleep the
    /// clocks say came after the last reading is placed right after it:
    /// the machine was awake at that reading and asleep soon after (the
    /// readings are at most `readingInterval` apart while anything looks),
    /// whereas the noticing waits for the first look after the resume,
    /// which may be hours later. Any left (slept before the last reading,
    /// which older data may hold) goes just before that reading. With no
    /// reading of this boot, just before `end`.
    func placing(sleep missing: TimeInterval, boot: BootTimeReading, end: Date) -> [AwayStretch] {
        guard let last = lastReading(in: boot), last.at <= end else {
            return [AwayStretch(reason: .asleep, start: end.addingTimeInterval(-missing), end: end)]
        }
        let after = min(missing, boot.suspended(since: last.boot) ?? missing)
        let before = missing - after
        var placed: [AwayStretch] = []
        if before >= 1 {
            placed.append(AwayStretch(reason: .asleep, start: max(startedAt, last.at.addingTimeInterval(-before)), end: last.at))
        }
        if after >= 1 {
            let start = min(last.at, end.addingTimeInterval(-after))
            placed.append(AwayStretch(reason: .asleep, start: start, end: start.addingTimeInterval(after)))
        }
        return placed
    }
}
