import FoundationEssentials
import RetimeShared

/// What the system service refuses, and why (semantics.md, "Who may do what").
public enum HeldBlockError: RetimeError, Equatable {
    /// A strict block stays until its time is up; `until` is when, on the
    /// wall clock as the service reads it now.
    case strict(until: Date?)
    /// The strict block is lowered once its unlock countdown runs out, at `until`.
    case countdown(until: Date)
    /// The user already has a strict block for another session.
    case anotherStrictBlock(until: Date?)
    /// Only root may release other users' blocks.
    case notRoot
    /// Root released this session's block: it is not raised again.
    case released
    /// A request the service does not understand.
    case badRequest(String)
    /// The service is not there to ask (the client's side).
    case unreachable(String)
    /// The service refused for a reason of another context (a wrong
    /// passcode, a lockout), passed on with its code.
    case refused(code: String, message: String)
    /// The block carries no daily allowance the service knows of.
    case noAllowance
    /// Today's allowance of the block's group is spent, by the service's count.
    case allowanceSpent
    /// An allowance runs already, until `until`.
    case allowanceRunning(until: Date)
    /// The caller's user asked for more slow work (passcode hashing, new
    /// names to block) than its share; it may ask again after `retryAfter`
    /// seconds.
    case slowDown(retryAfter: TimeInterval)

    public var code: String {
        switch self {
        case .strict: "system.strict"
        case .countdown: "system.unlockCountdown"
        case .anotherStrictBlock: "system.strictBlockHeld"
        case .notRoot: "system.notRoot"
        case .released: "system.released"
        case .badRequest: "system.badRequest"
        case .unreachable: "system.unreachable"
        case .refused(let code, _): code
        case .slowDown: "system.slowDown"
        case .noAllowance: "system.noAllowance"
        case .allowanceSpent: "system.allowanceSpent"
        case .allowanceRunning: "system.allowanceRunning"
        }
    }

    public var kind: ErrorKind {
        switch self {
        case .strict, .countdown, .anotherStrictBlock, .notRoot, .released: .authorization
        case .badRequest: .invalidInput
        case .unreachable: .storage
        case .refused(let code, _): code.hasPrefix("auth.") ? .authorization : .domain
        case .slowDown: .domain
        case .noAllowance, .allowanceSpent, .allowanceRunning: .domain
        }
    }

    public var description: String { message(writingInstants: utcInstant) }

    public func message(writingInstants instant: (Date) -> String) -> String {
        switch self {
        case .strict(let until?): "the system service holds this strict block until \(instant(until))"
        case .strict(nil): "the system service holds this strict block"
        case .countdown(let until): "the system service lowers this strict block when its unlock countdown runs out, at \(instant(until))"
        case .anotherStrictBlock(let until):
            "the system service holds a strict block of yours" + (until.map { " until \(instant($0))" } ?? "")
        case .notRoot: "only root may release other users' blocks"
        case .released: "root released this session's block; it is not raised again"
        case .badRequest(let reason): "the system service refused the request: \(reason)"
        case .unreachable(let reason): "the system service cannot be reached: \(reason)"
        case .refused(_, let message): "the system service refused: \(message)"
        case .noAllowance: "the system service knows no daily allowance for this block's group"
        case .allowanceSpent: "today's allowance of this block's group is spent, by the system service's count"
        case .allowanceRunning(let until): "an allowance runs already, until \(instant(until))"
        case .slowDown(let seconds):
            "your user asked the system service for too much at once (passcode checks, or new names to block); try again in \(Int(seconds.rounded(.up))) s"
        }
    }
}
