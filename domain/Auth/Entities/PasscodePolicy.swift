/// What a new passcode must be. Short passcodes are allowed on purpose
/// (a friend types a 4-digit code to release you, as with Screen Time);
/// the lockout, not the length, is what stops guessing.
public enum PasscodePolicy {
    public static let lengths = 4...256

    /// Throws `invalidPasscode` unless `passcode` may be set.
    public static func check(_ passcode: Passcode) throws(AuthError) {
        let count = passcode.text.count
        guard count >= lengths.lowerBound else {
            throw .invalidPasscode(reason: "it needs at least \(lengths.lowerBound) characters")
        }
        guard count <= lengths.upperBound else {
            throw .invalidPasscode(reason: "it may have at most \(lengths.upperBound) characters")
        }
        guard !passcode.text.unicodeScalars.contains(where: { $0.properties.generalCategory == .control }) else {
            throw .invalidPasscode(reason: "it may not contain control characters")
        }
    }
}
