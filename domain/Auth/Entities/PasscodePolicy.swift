import RetimeShared

/// What a new passcode must be. Short passcodes are allowed on purpose
/// (a friend types a 4-digit code to release you, as with Screen Time);
/// the lockout, not the length, is what stops guessing.
public enum PasscodePolicy {
    public static let lengths = 4...256
    /// What the system's hashing accepts (libxcrypt refuses 512 bytes and more).
    public static let maximumBytes = 500

    /// Throws `invalidPasscode` unless `passcode` may be set.
    public static func check(_ passcode: Passcode) throws(AuthError) {
        let count = passcode.text.count
        guard count >= lengths.lowerBound else {
            throw .invalidPasscode(reason: "it needs at least \(lengths.lowerBound) characters")
        }
        guard count <= lengths.upperBound else {
            throw .invalidPasscode(reason: "it may have at most \(lengths.upperBound) characters")
        }
        guard passcode.text.utf8.count <= maximumBytes else {
            throw .invalidPasscode(reason: "it may take at most \(maximumBytes) bytes as UTF-8 (accented letters take two, emoji four)")
        }
        guard !passcode.text.unicodeScalars.contains(where: { $0.properties.generalCategory == .control }) else {
            throw .invalidPasscode(reason: "it may not contain control characters")
        }
    }
}
