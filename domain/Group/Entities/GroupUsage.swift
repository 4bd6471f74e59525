/// Something that uses a group and so keeps it from being deleted: the active
/// session or a schedule. Described in plain terms so the Group context needs
/// no Session types.
public struct GroupUsage: Hashable, Sendable, CustomStringConvertible {
    public enum Kind: String, Sendable, Hashable {
        case activeSession = "the active session"
        case schedule = "schedule"
    }

    public var kind: Kind
    /// The user's name for the thing (a schedule's name; the session's id).
    public var name: String

    public init(kind: Kind, name: String) {
        self.kind = kind
        self.name = name
    }

    public static func activeSession(_ id: String) -> GroupUsage { .init(kind: .activeSession, name: id) }
    public static func schedule(_ name: String) -> GroupUsage { .init(kind: .schedule, name: name) }

    /// Several usages as one phrase: `the active session (ID) and
    /// schedules 'a', 'b' and 'c'`.
    public static func phrase(_ usages: [GroupUsage]) -> String {
        var parts = usages.filter { $0.kind == .activeSession }.map(\.description)
        let schedules = usages.filter { $0.kind == .schedule }.map { "'\($0.name)'" }
        if schedules.count == 1 { parts.append("schedule \(schedules[0])") }
        if schedules.count > 1 { parts.append("schedules \(sentence(schedules))") }
        return sentence(parts)
    }

    /// `a`, `a and b`, `a, b and c`.
    private static func sentence(_ items: [String]) -> String {
        guard let last = items.last, items.count > 1 else { return items.first ?? "" }
        return items.dropLast().joined(separator: ", ") + " and " + last
    }

    public var description: String {
        switch kind {
        case .activeSession: "the active session (\(name))"
        case .schedule: "schedule '\(name)'"
        }
    }
}
