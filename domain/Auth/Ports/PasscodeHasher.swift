import RetimeShared

/// Turns a passcode into a salted, deliberately slow hash and checks a
/// passcode against one. The hash is self-describing (crypt(3) format:
/// algorithm, cost and salt inside), so a stored hash stays verifiable when
/// the default algorithm changes.
///
/// The contract every adapter keeps is `PasscodeHasherContract`.
public protocol PasscodeHasher: Sendable {
    /// A new hash with a fresh random salt: hashing twice gives two different strings.
    func hash(_ passcode: Passcode) throws(AuthError) -> String
    /// Whether `passcode` is the one `hash` was made from. A malformed hash
    /// matches nothing.
    func verify(_ passcode: Passcode, against hash: String) -> Bool
}
