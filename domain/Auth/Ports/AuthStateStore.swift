/// Where the Auth context keeps its state. `update` is an atomic
/// read-modify-write across processes, which is what makes the lockout hold
/// against a second process trying passcodes at the same time. Where a
/// data folder is shared by devices, the passcode's hash is theirs in
/// common (the newest change of any of them) and the rest of the state,
/// the lockout and the shield's authorization, is this machine's.
///
/// The contract every adapter keeps is `AuthStateStoreContract`.
public protocol AuthStateStore: Sendable {
    func state() async throws -> AuthState
    /// Runs `body` on the current state under an exclusive lock and stores
    /// what it leaves. If `body` throws, nothing is stored.
    func update<Result: Sendable>(_ body: (inout AuthState) throws -> Result) async throws -> Result
    /// Which device last set or removed the passcode, where the passcode
    /// is shared between devices; nil where it is not (or none ever was).
    func passcodeOrigin() async throws -> PasscodeOrigin?
}

extension AuthStateStore {
    /// A store of one machine's state knows no other device.
    public func passcodeOrigin() async throws -> PasscodeOrigin? { nil }
}
