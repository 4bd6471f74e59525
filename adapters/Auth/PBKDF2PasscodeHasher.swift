#if canImport(CommonCrypto)
import CommonCrypto
import Domain
import FoundationEssentials
#if canImport(Glibc)
import Glibc
#endif
import Security

/// Passcode hashes on Apple platforms, where libxcrypt is not the system's
/// library: PBKDF2-HMAC-SHA256 from CommonCrypto with a 16-byte random salt,
/// stored as `$pbkdf2-sha256$ROUNDS$SALT$HASH` (base64).
///
/// Only compiled on Apple platforms: retime's CI builds and tests on Linux,
/// where `CryptPasscodeHasher` is used, so this adapter has not been run by
/// `PasscodeHasherContract` there. Run the contract on macOS before relying on it.
public struct PBKDF2PasscodeHasher: PasscodeHasher {
    public let rounds: UInt32

    /// 600,000 rounds: OWASP's 2023 figure for PBKDF2-HMAC-SHA256.
    public init(rounds: UInt32 = 600_000) {
        self.rounds = rounds
    }

    public func hash(_ passcode: Passcode) throws(AuthError) -> String {
        var salt = [UInt8](repeating: 0, count: 16)
        guard SecRandomCopyBytes(kSecRandomDefault, salt.count, &salt) == errSecSuccess else {
            throw .hashingFailed("no random bytes for the salt")
        }
        guard let key = Self.derive(passcode.text, salt: salt, rounds: rounds) else { throw .hashingFailed("PBKDF2 failed") }
        return "$pbkdf2-sha256$\(rounds)$\(Data(salt).base64EncodedString())$\(Data(key).base64EncodedString())"
    }

    public func verify(_ passcode: Passcode, against hash: String) -> Bool {
        let parts = hash.split(separator: "$", omittingEmptySubsequences: false)
        guard parts.count == 5, parts[0].isEmpty, parts[1] == "pbkdf2-sha256", let rounds = UInt32(parts[2]), rounds > 0,
              let salt = Data(base64Encoded: String(parts[3])), let expected = Data(base64Encoded: String(parts[4])),
              expected.count == 32, let key = Self.derive(passcode.text, salt: Array(salt), rounds: rounds) else { return false }
        return constantTimeEqual(key, Array(expected))
    }

    private static func derive(_ text: String, salt: [UInt8], rounds: UInt32) -> [UInt8]? {
        var key = [UInt8](repeating: 0, count: 32)
        let status = text.withCString { password in
            CCKeyDerivationPBKDF(CCPBKDFAlgorithm(kCCPBKDF2), password, strlen(password), salt, salt.count,
                                 CCPseudoRandomAlgorithm(kCCPRFHmacAlgSHA256), rounds, &key, key.count)
        }
        return status == kCCSuccess ? key : nil
    }
}
#endif
