import FoundationEssentials
import RetimeShared

/// Everything that can go wrong with schedules.
public enum ScheduleError: RetimeError, Equatable {
    case notFound(name: String)
    case alreadyExists(name: String)
    case invalidName(String, reason: String)
    case invalidTime(String)
    case emptyInterval
    case invalidDays(String)
    case invalidWarning(String)
    case groupNotFound(name: String)
    /// A strict schedule's removal or disabling waits for its next interval
    /// to end; with `--passcode-stdin` and no passcode set, it cannot be
    /// made sooner.
    case strict(name: String, until: Date)

    public var code: String {
        switch self {
        case .notFound: "schedule.notFound"
        case .alreadyExists: "schedule.alreadyExists"
        case .invalidName: "schedule.invalidName"
        case .invalidTime: "schedule.invalidTime"
        case .emptyInterval: "schedule.emptyInterval"
        case .invalidDays: "schedule.invalidDays"
        case .invalidWarning: "schedule.invalidWarning"
        case .groupNotFound: "group.notFound"
        case .strict: "schedule.strict"
        }
    }

    public var kind: ErrorKind {
        switch self {
        case .notFound, .alreadyExists, .groupNotFound: .domain
        case .strict: .authorization
        case .invalidName, .invalidTime, .emptyInterval, .invalidDays, .invalidWarning: .invalidInput
        }
    }

    public var description: String { message(writingInstants: utcInstant) }

    public func message(writingInstants instant: (Date) -> String) -> String {
        switch self {
        case .strict(let name, let until):
            "'\(name)' is a strict schedule: it is removed or disabled only after its next interval ends (\(instant(until))),"
                + " or at once with the passcode, and no passcode is set"
        case .notFound(let name): "no schedule named '\(name)'"
        case .alreadyExists(let name): "a schedule named '\(name)' already exists"
        case .invalidName(let name, let reason): "invalid schedule name '\(name)': \(reason)"
        case .invalidTime(let text): "invalid time '\(text)': write HH:MM or HH:MM:SS, 24-hour"
        case .emptyInterval: "--from and --to are the same time: an interval needs a length"
        case .invalidDays(let text): "invalid days '\(text)': write daily, weekdays, weekends, or days and ranges like mon,wed,fri or mon-fri"
        case .invalidWarning(let reason): "invalid warning: \(reason)"
        case .groupNotFound(let name): "no group named '\(name)'"
        }
    }
}
