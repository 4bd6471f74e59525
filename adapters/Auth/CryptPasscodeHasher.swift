#if os(Linux)
import CCrypt
import Domain
import Glibc

/// Passcode hashes made by libxcrypt, the library that hashes the system's
/// own passwords: yescrypt (`$y$`) with the library's default cost for new
/// hashes; any crypt(3) hash the library knows is verified.
public struct CryptPasscodeHasher: PasscodeHasher {
    /// The hash method's crypt(3) prefix; `$y$` is yescrypt.
    private let method: String
    /// The method's cost parameter; 0 asks for the library's default.
    private let cost: UInt

    public init(method: String = "$y$", cost: UInt = 0) {
        self.method = method
        self.cost = cost
    }

    public func hash(_ passcode: Passcode) throws(AuthError) -> String {
        var setting = [CChar](repeating: 0, count: Int(CRYPT_GENSALT_OUTPUT_SIZE))
        // A nil random-bytes argument makes the library draw the salt from the OS.
        guard crypt_gensalt_rn(method, cost, nil, 0, &setting, Int32(setting.count)) != nil else {
            throw .hashingFailed("crypt_gensalt(\(method)): \(String(cString: strerror(errno)))")
        }
        guard let hash = Self.crypt(passcode.text, setting: setting) else {
            throw .hashingFailed("crypt(\(method)): \(String(cString: strerror(errno)))")
        }
        return hash
    }

    public func verify(_ passcode: Passcode, against hash: String) -> Bool {
        guard let computed = Self.crypt(passcode.text, setting: Array(hash.utf8CString)) else { return false }
        return constantTimeEqual(Array(computed.utf8), Array(hash.utf8))
    }

    /// crypt_rn with its large work area on the heap, wiped afterwards; nil
    /// when the library refuses (unknown method, malformed setting).
    private static func crypt(_ phrase: String, setting: [CChar]) -> String? {
        let size = MemoryLayout<crypt_data>.size
        let data = UnsafeMutableRawPointer.allocate(byteCount: size, alignment: MemoryLayout<crypt_data>.alignment)
        memset(data, 0, size)
        defer {
            memset(data, 0, size)
            data.deallocate()
        }
        let work = data.assumingMemoryBound(to: crypt_data.self)
        guard let output = crypt_rn(phrase, setting, work, Int32(size)) else { return nil }
        let text = String(cString: output)
        // The library's failure tokens start with '*' and are never valid hashes.
        return text.hasPrefix("*") ? nil : text
    }
}
#endif
