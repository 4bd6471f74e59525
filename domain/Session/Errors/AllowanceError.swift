import FoundationEssentials
import RetimeShared

/// What `allow` and `group set-allowance` refuse, and why.
public enum AllowanceError: RetimeError, Equatable {
    /// Nothing of today's allowance is left.
    case spent(group: String)
    /// The group has no allowance.
    case none(group: String)
    /// `allow --cancel` with no allowance running.
    case notRunning
    /// An allowance already runs for the group.
    case alreadyRunning(until: Date)
    /// A length that is not a positive duration of at most a day.
    case invalidLength(String)
    /// A strict block on the group runs: its allowance cannot be changed.
    case strict(until: Date)

    public var code: String {
        switch self {
        case .spent: "allowance.spent"
        case .none: "allowance.none"
        case .notRunning: "allowance.notRunning"
        case .alreadyRunning: "allowance.running"
        case .invalidLength: "allowance.invalidDuration"
        case .strict: "allowance.strict"
        }
    }

    public var kind: ErrorKind {
        switch self {
        case .spent, .none, .notRunning, .alreadyRunning: .domain
        case .invalidLength: .invalidInput
        case .strict: .authorization
        }
    }

    public var description: String { message(writingInstants: utcInstant) }

    public func message(writingInstants instant: (Date) -> String) -> String {
        switch self {
        case .spent(let group): "today's allowance of '\(group)' is spent"
        case .none(let group): "group '\(group)' has no allowance: 'retime group set-allowance \(group) DURATION' gives it one"
        case .notRunning: "no allowance is running"
        case .alreadyRunning(let until): "an allowance is already running, until \(instant(until)); 'retime allow --cancel' ends it"
        case .invalidLength(let reason): "invalid allowance: \(reason)"
        case .strict(let until): "a strict block on the group runs until \(instant(until)): its allowance cannot be changed before"
        }
    }
}
