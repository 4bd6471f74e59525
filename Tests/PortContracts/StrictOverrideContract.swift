import Domain
import Foundation

/// The rules every `StrictOverride` keeps: with no passcode set a strict
/// session's refusal stands whatever is given (no way out, as SelfControl);
/// with one set, the right passcode lets the action through, none given is
/// asked for, and a wrong one is refused as wrong without spoiling the
/// right one.
public enum StrictOverrideContract {
    public struct Subject: Sendable {
        public var override: any StrictOverride
        /// Sets the user's passcode as `auth set-passcode` would.
        public var setPasscode: @Sendable (Passcode) async throws -> Void

        public init(override: any StrictOverride, setPasscode: @escaping @Sendable (Passcode) async throws -> Void) {
            self.override = override
            self.setPasscode = setPasscode
        }
    }

    public typealias Factory = @Sendable () async throws -> Subject

    /// What the strict session's rule refused with.
    struct Refusal: Error, Equatable {}

    static let passcode = Passcode("correct horse 42")

    public static let checks: [ContractCheck<Factory>] = [
        ContractCheck("with no passcode set, the refusal itself stands, whether a passcode is given or not") { make in
            let subject = try await make()
            for given in [nil, passcode, Passcode("guess")] {
                try await requireThrows(Refusal(), "authorize with \(given == nil ? "none" : "one") given") {
                    try await subject.override.authorize("stop", passcode: given, otherwise: Refusal())
                }
            }
        },
        ContractCheck("with a passcode set, the right one lets the action through") { make in
            let subject = try await make()
            try await subject.setPasscode(passcode)
            try await subject.override.authorize("stop", passcode: passcode, otherwise: Refusal())
        },
        ContractCheck("with a passcode set and none given, it is asked for rather than refused outright") { make in
            let subject = try await make()
            try await subject.setPasscode(passcode)
            try await requireThrows(AuthError.passcodeRequired, "authorize without a passcode") {
                try await subject.override.authorize("pause", passcode: nil, otherwise: Refusal())
            }
        },
        ContractCheck("a wrong passcode is refused as wrong, and the right one still works after it") { make in
            let subject = try await make()
            try await subject.setPasscode(passcode)
            do {
                try await subject.override.authorize("stop", passcode: Passcode("wrong"), otherwise: Refusal())
                throw ContractViolation(message: "a wrong passcode was let through", file: #filePath, line: #line)
            } catch AuthError.wrongPasscode {}
            try await subject.override.authorize("stop", passcode: passcode, otherwise: Refusal())
        },
    ]
}
