import FoundationEssentials
import RetimeShared

/// Everything that can go wrong in the Group context.
public enum GroupError: RetimeError, Equatable {
    case notFound(name: String)
    case alreadyExists(name: String)
    case invalidName(String, reason: String)
    case invalidTarget(String, reason: String)
    case targetNotInGroup(target: String, group: String)
    /// Deleting (or otherwise retiring) a group that something still uses.
    case inUse(name: String, by: [GroupUsage])
    /// A strict session on the group forbids weakening it until its end.
    case locked(name: String, until: Date)
    /// A port the context depends on failed; the cause is kept.
    case unavailable(String)
    /// A daily allowance that is not from 1 second to 24 hours.
    case invalidAllowance(String)
    /// A strict session on the group: its allowance cannot be raised until its end.
    case allowanceLocked(name: String, until: Date)

    public var code: String {
        switch self {
        case .notFound: "group.notFound"
        case .alreadyExists: "group.alreadyExists"
        case .invalidName: "group.invalidName"
        case .invalidTarget: "group.invalidTarget"
        case .targetNotInGroup: "group.targetNotInGroup"
        case .inUse: "group.inUse"
        case .locked: "group.locked"
        case .unavailable: "group.unavailable"
        case .invalidAllowance: "group.invalidAllowance"
        case .allowanceLocked: "group.locked"
        }
    }

    public var kind: ErrorKind {
        switch self {
        case .invalidName, .invalidTarget, .invalidAllowance: .invalidInput
        case .unavailable: .storage
        case .locked, .allowanceLocked: .authorization
        case .notFound, .alreadyExists, .targetNotInGroup, .inUse: .domain
        }
    }

    public var description: String { message(writingInstants: utcInstant) }

    public func message(writingInstants instant: (Date) -> String) -> String {
        switch self {
        case .notFound(let name): "no group named '\(name)'"
        case .alreadyExists(let name): "a group named '\(name)' already exists"
        case .invalidName(let name, let reason): "invalid group name '\(name)': \(reason)"
        case .invalidTarget(let target, let reason): "invalid target '\(target)': \(reason)"
        case .targetNotInGroup(let target, let group): "group '\(group)' does not block '\(target)'"
        case .inUse(let name, let usages):
            "group '\(name)' is in use by \(GroupUsage.phrase(usages))"
        case .locked(let name, let until):
            "group '\(name)' is held by a strict session until \(instant(until)): it cannot lose targets, be renamed or deleted"
        case .unavailable(let cause): "groups are unavailable: \(cause)"
        case .invalidAllowance(let reason): "invalid allowance: \(reason)"
        case .allowanceLocked(let name, let until):
            "group '\(name)' is held by a strict session until \(instant(until)): its allowance cannot be raised before"
        }
    }
}
