import RetimeShared

/// The Auth context's answer to `StrictOverride`: the right passcode lets
/// an action through a strict session's refusal; with no passcode set the
/// refusal stands (semantics.md: like SelfControl, no way out).
public struct PasscodeOverride: StrictOverride {
    private let verify: VerifyPasscodeUseCase

    public init(verify: VerifyPasscodeUseCase) {
        self.verify = verify
    }

    public func authorize(_ action: String, passcode: Passcode?, otherwise refusal: any Error) async throws {
        do {
            try await verify.execute(passcode, action: action)
        } catch AuthError.passcodeNotSet {
            throw refusal
        }
    }
}
