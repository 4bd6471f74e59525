/// How a refusal during a strict session is overridden by the passcode.
/// The Session, Group and settings rules refuse what a strict session
/// forbids and ask this port whether the caller may go ahead anyway; the
/// Auth context answers (`PasscodeOverride`).
public protocol StrictOverride: Sendable {
    /// Returns when `passcode` overrides the refusal of `action`. Otherwise
    /// throws: `refusal` itself when no passcode is set (a strict session
    /// then has no way out), or why the passcode did not do (required,
    /// wrong, locked out).
    func authorize(_ action: String, passcode: Passcode?, otherwise refusal: any Error) async throws
}
