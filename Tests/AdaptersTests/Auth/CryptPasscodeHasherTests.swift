#if os(Linux)
import Adapters
import Domain
import Foundation
import PortContracts
import Testing

@Suite("libxcrypt passcode hasher")
struct CryptPasscodeHasherTests {
    @Test(arguments: PasscodeHasherContract.checks)
    func contract(_ check: ContractCheck<PasscodeHasherContract.Factory>) async throws {
        try await check.run { CryptPasscodeHasher() }
    }

    @Test("new hashes are yescrypt, in crypt(3) format")
    func yescrypt() throws {
        let hash = try CryptPasscodeHasher().hash(Passcode("1234"))
        #expect(hash.hasPrefix("$y$"))
        #expect(hash.split(separator: "$").count == 4, "method, parameters, salt, hash: \(hash)")
    }

    /// Hashes made elsewhere: the SHA-crypt specification's own example, and
    /// a yescrypt hash published with its password. Checking them shows the
    /// adapter calls the library as every other program does.
    @Test("verifies known libxcrypt outputs and rejects near misses", arguments: [
        ("Hello world!", "$6$saltstring$svn8UoSVapNtMuq1ukKS4tPQd8iKwSMHWjl/O817G3uBnIFNjnQJuesI68u4OTLiBFdcbYEdFCoEOfaS35inz1"),
        ("WA7NERURoVlDegBUVyM1Kk", "$y$j9T$Qeof7nTZR1kT1cFwdlZqd0$B5.LdYzAcE8IwmEjeOUR9RwIwpalyyj/oxaiDqnryZ/"),
    ])
    func knownOutputs(passcode: String, hash: String) {
        let hasher = CryptPasscodeHasher()
        #expect(hasher.verify(Passcode(passcode), against: hash))
        #expect(!hasher.verify(Passcode(passcode + "x"), against: hash))
        #expect(!hasher.verify(Passcode(String(passcode.dropLast())), against: hash))
        // The same salt with a one-character change in the stored hash matches nothing.
        let tampered = String(hash.dropLast()) + (hash.last == "A" ? "B" : "A")
        #expect(!hasher.verify(Passcode(passcode), against: tampered))
    }

    @Test("an unknown method is a typed error, not a crash")
    func unknownMethod() {
        #expect(throws: AuthError.self) { try CryptPasscodeHasher(method: "$nope$").hash(Passcode("1234")) }
    }
}
#endif
