import Domain

/// The user's passcode as the system service keeps it, set, changed and
/// removed through its socket.
public struct SystemPasscodes: EnforcerPasscodes {
    public let client: ShieldClient

    public init(socketPath: String) {
        client = ShieldClient(socketPath: socketPath)
    }

    public func set(_ passcode: Passcode) async throws {
        _ = try client.send(.init(op: .setPasscode, passcode: passcode.text))
    }

    public func change(from current: Passcode, to new: Passcode) async throws {
        _ = try client.send(.init(op: .changePasscode, passcode: current.text, newPasscode: new.text))
    }

    public func remove(_ current: Passcode) async throws {
        _ = try client.send(.init(op: .removePasscode, passcode: current.text))
    }
}
