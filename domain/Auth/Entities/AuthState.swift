import FoundationEssentials

/// Everything the Auth context keeps between processes: the passcode's hash
/// (never the passcode), the run of wrong attempts and the lock it earned,
/// and the shield's authorization.
public struct AuthState: Sendable, Equatable, Codable {
    /// A crypt(3) string: algorithm, cost, salt and hash; nil when no passcode is set.
    public var passcodeHash: String?
    /// Wrong passcodes in a row since the last right one.
    public var failedAttempts: Int
    /// Until when every attempt is refused unheard.
    public var lockedUntil: Date?
    public var shieldAuthorization: ShieldAuthorization
    /// True when an enforcer outside the user's data (the system service)
    /// holds the passcode: its hash is kept there only, never here, so it
    /// cannot be cracked offline from the user's own files, and every check
    /// goes through the enforcer's lockout. Absent in older data.
    public var passcodeHeldByEnforcer: Bool?

    public init(passcodeHash: String? = nil, failedAttempts: Int = 0, lockedUntil: Date? = nil,
                shieldAuthorization: ShieldAuthorization = .notDetermined, passcodeHeldByEnforcer: Bool? = nil) {
        self.passcodeHash = passcodeHash
        self.passcodeHeldByEnforcer = passcodeHeldByEnforcer
        self.failedAttempts = failedAttempts
        self.lockedUntil = lockedUntil
        self.shieldAuthorization = shieldAuthorization
    }

    /// Whether a passcode is set, here or with the enforcer.
    public var isPasscodeSet: Bool { passcodeHash != nil || passcodeIsWithEnforcer }

    /// Whether the enforcer holds the passcode (and this state no hash).
    public var passcodeIsWithEnforcer: Bool { passcodeHeldByEnforcer == true }

    /// The end of the lock in force at `now`, if any.
    public func lockedOut(at now: Date) -> Date? {
        guard let lockedUntil, lockedUntil > now else { return nil }
        return lockedUntil
    }

    /// Counts a failed attempt and locks out when the rules say so.
    public mutating func recordFailure(at now: Date) {
        failedAttempts += 1
        if let lock = Lockout.duration(afterFailures: failedAttempts) { lockedUntil = now.addingTimeInterval(lock) }
    }

    /// A right passcode clears the run of failures and any lock.
    public mutating func recordSuccess() {
        failedAttempts = 0
        lockedUntil = nil
    }
}
