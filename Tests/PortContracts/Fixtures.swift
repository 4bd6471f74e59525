import Domain
import Foundation

/// Sample values for the verifiers. Instants carry sub-millisecond fractions
/// so that an adapter which rounds dates fails the round-trip checks.
public enum Fixtures {
    public static let epoch = Date(timeIntervalSince1970: 1_800_000_000.123_456)

    public static func instant(_ seconds: TimeInterval) -> Date {
        epoch.addingTimeInterval(seconds)
    }

    public static func group(_ name: String, targets: [String] = ["example.com", "app:slack"],
                             at seconds: TimeInterval = 0) -> Group {
        Group(name: try! GroupName(name), targets: targets.map { try! Target(parsing: $0) },
              createdAt: instant(seconds))
    }

    /// An active session with every optional field set.
    public static func session(group: GroupID = GroupID(), startingAt seconds: TimeInterval = 0,
                               length: TimeInterval? = 1_500, strict: Bool = false,
                               origin: SessionOrigin = .schedule("mornings")) -> Session {
        Session(groupId: group, startedAt: instant(seconds), plannedEnd: length.map { instant(seconds + $0) },
                strict: strict, tags: ["deep work", "writing"], note: "chapter 3", origin: origin,
                bootDeadline: strict ? BootTimeReading(bootID: "b7a5c3e2-boot", seconds: 12_345.678_9 + (length ?? 0)) : nil)
    }

    /// A session that ran from `seconds` for `length` with one break, and ended.
    public static func endedSession(group: GroupID = GroupID(), startingAt seconds: TimeInterval,
                                    length: TimeInterval = 600) -> Session {
        try! session(group: group, startingAt: seconds, length: length)
            .pausing(at: instant(seconds + 60)).resuming(at: instant(seconds + 90))
            .ending(at: instant(seconds + length), outcome: .completed)
    }

    /// A weekday-morning schedule with a warning.
    public static func schedule(_ name: String, group: GroupID = GroupID(), from: String = "09:00", to: String = "12:00:30") -> Schedule {
        Schedule(name: name, groupId: group, from: TimeOfDay(parsing: from)!, to: TimeOfDay(parsing: to)!,
                 weekdays: Weekday.weekdays, warnSeconds: 300, strict: true)
    }
}

extension Session {
    /// The same session under another id (a revision of `id` in the history checks).
    public func withID(_ id: SessionID) -> Session {
        Session(id: id, groupId: groupId, startedAt: startedAt, plannedEnd: plannedEnd, endedAt: endedAt, outcome: outcome,
                strict: strict, breaks: breaks, tags: tags, note: note, origin: origin, bootDeadline: bootDeadline, shield: shield)
    }
}
