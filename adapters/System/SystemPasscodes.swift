import Domain

/// The user's passcode as the system service keeps it, set, changed and
/// removed through its socket.
public struct SystemPasscodes: EnforcerPasscodes {
    public let client: ShieldClient

    public init(socketPath: String) {
        client = ShieldClient(socketPath: socketPath)
    }

    /// Whether the service holds a passcode for the caller, and its lockout
    /// (a service from before it said so counts as holding none).
    public func passcodeState() async throws -> EnforcerPasscodeState? {
        let answer = try send(.init(op: .status))
        return EnforcerPasscodeState(held: answer.passcodeSet ?? false, failedAttempts: answer.passcodeFailedAttempts ?? 0,
                                     lockedUntil: answer.passcodeLockedUntil)
    }

    public func set(_ passcode: Passcode) async throws {
        _ = try send(.init(op: .setPasscode, passcode: passcode.text))
    }

    public func change(from current: Passcode, to new: Passcode) async throws {
        _ = try send(.init(op: .changePasscode, passcode: current.text, newPasscode: new.text))
    }

    public func remove(_ current: Passcode) async throws {
        _ = try send(.init(op: .removePasscode, passcode: current.text))
    }

    public func verify(_ passcode: Passcode, action: String) async throws {
        _ = try send(.init(op: .verifyPasscode, passcode: passcode.text))
    }

    /// The service's refusals that the Auth context acts on, as its own errors.
    private func send(_ request: ShieldProtocol.Request) throws -> ShieldProtocol.Answer {
        do {
            return try client.send(request)
        } catch .refused(code: AuthError.passcodeNotSet.code, _) {
            throw AuthError.passcodeNotSet
        } catch .refused(code: AuthError.passcodeAlreadySet.code, _) {
            throw AuthError.passcodeAlreadySet
        }
    }
}
