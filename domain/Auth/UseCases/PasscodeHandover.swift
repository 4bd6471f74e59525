/// Moves the passcode's hash out of the user's data once the enforcer (the
/// system service) holds a passcode of its own for the user: data written
/// before the service kept passcodes alone had the hash in both places, and
/// the copy in the user's files could be cracked offline, past the
/// service's lockout. Every auth command and every check does it first.
struct PasscodeHandover: Sendable {
    let state: any AuthStateStore
    let enforcer: (any EnforcerPasscodes)?

    /// The state, with the local hash dropped when the enforcer holds one.
    /// An enforcer that cannot be asked now changes nothing: the next
    /// command asks again.
    func settled() async throws -> AuthState {
        let current = try await state.state()
        guard let enforcer, current.passcodeHash != nil, (try? await enforcer.heldPasscode()) == true else { return current }
        return try await state.update { state in
            state.passcodeHash = nil
            state.passcodeHeldByEnforcer = true
            return state
        }
    }
}
