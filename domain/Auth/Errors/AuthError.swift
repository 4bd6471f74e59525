import FoundationEssentials
import RetimeShared

/// Everything that can go wrong in the Auth context.
public enum AuthError: RetimeError, Equatable {
    /// The action needs the passcode and none was given.
    case passcodeRequired
    /// The passcode was wrong; `attemptsLeft` more may fail before a lockout.
    case wrongPasscode(attemptsLeft: Int, lockedUntil: Date?)
    /// Too many wrong passcodes: every attempt is refused until then.
    case lockedOut(until: Date)
    case passcodeNotSet
    case passcodeAlreadySet
    case invalidPasscode(reason: String)
    /// A passcode cannot be set while a strict session runs: it would open
    /// a way out of a session that was started without one.
    case strictSession(until: Date)
    /// The hashing library failed; the cause is kept.
    case hashingFailed(String)

    public var code: String {
        switch self {
        case .passcodeRequired: "auth.passcodeRequired"
        case .wrongPasscode: "auth.wrongPasscode"
        case .lockedOut: "auth.lockedOut"
        case .passcodeNotSet: "auth.passcodeNotSet"
        case .passcodeAlreadySet: "auth.passcodeAlreadySet"
        case .invalidPasscode: "auth.invalidPasscode"
        case .strictSession: "auth.strictSession"
        case .hashingFailed: "auth.hashingFailed"
        }
    }

    public var kind: ErrorKind {
        switch self {
        case .passcodeRequired, .wrongPasscode, .lockedOut, .strictSession: .authorization
        case .passcodeNotSet, .passcodeAlreadySet: .domain
        case .invalidPasscode: .invalidInput
        case .hashingFailed: .storage
        }
    }

    public var description: String { message(writingInstants: utcInstant) }

    public func message(writingInstants instant: (Date) -> String) -> String {
        switch self {
        case .passcodeRequired: "a strict session is running: give the passcode (--passcode-stdin)"
        case .wrongPasscode(_, let until?): "wrong passcode; locked out until \(instant(until))"
        case .wrongPasscode(let left, nil): "wrong passcode (\(left) more before a lockout)"
        case .lockedOut(let until): "too many wrong passcodes: locked out until \(instant(until))"
        case .passcodeNotSet: "no passcode is set (retime auth set-passcode)"
        case .passcodeAlreadySet: "a passcode is already set (retime auth change-passcode)"
        case .invalidPasscode(let reason): "invalid passcode: \(reason)"
        case .strictSession(let until): "a passcode cannot be set during a strict session (it ends \(instant(until)))"
        case .hashingFailed(let cause): "the passcode could not be hashed: \(cause)"
        }
    }
}
