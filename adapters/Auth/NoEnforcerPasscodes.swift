import Domain

/// No enforcer keeps a passcode of its own (the `none` and `hosts` shields).
public struct NoEnforcerPasscodes: EnforcerPasscodes {
    public init() {}
    public func passcodeState() async throws -> EnforcerPasscodeState? { nil }
    public func verify(_ passcode: Passcode, action: String) async throws { throw AuthError.passcodeNotSet }
    public func set(_ passcode: Passcode) async throws {}
    public func change(from current: Passcode, to new: Passcode) async throws {}
    public func remove(_ current: Passcode) async throws {}
}
