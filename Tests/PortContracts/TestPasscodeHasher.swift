import Domain
import Synchronization

/// A fast stand-in for a real hasher in use-case tests, where a slow hash
/// would only cost time. It keeps `PasscodeHasherContract` (salted, no
/// passcode in the hash) but is not secure: never use it outside tests.
public final class TestPasscodeHasher: PasscodeHasher {
    private let counter = Mutex(0)

    public init() {}

    /// How many hashes it has made (a spy: work refused requests must not cost).
    public var hashes: Int { counter.withLock { $0 } }

    public func hash(_ passcode: Passcode) throws(AuthError) -> String {
        let salt = counter.withLock { value -> Int in
            value += 1
            return value
        }
        return "$test$\(salt)$\(Self.digest(passcode.text, salt: salt))"
    }

    public func verify(_ passcode: Passcode, against hash: String) -> Bool {
        let parts = hash.split(separator: "$", omittingEmptySubsequences: false)
        guard parts.count == 4, parts[1] == "test", let salt = Int(parts[2]) else { return false }
        return String(parts[3]) == Self.digest(passcode.text, salt: salt)
    }

    /// FNV-1a over the salt and the passcode's bytes, in hex.
    private static func digest(_ text: String, salt: Int) -> String {
        var value: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in Array(String(salt).utf8) + [0] + Array(text.utf8) {
            value = (value ^ UInt64(byte)) &* 0x100_0000_01b3
        }
        return String(value, radix: 16)
    }
}
