#if canImport(Glibc)
import Glibc
#endif
import Domain
import Testing

/// Addresses as the firewall writes them to nft and people read them.
@Suite("IP addresses")
struct IPAddressTests {
    /// What the C library writes for the same bytes.
    static func ntop(_ bytes: [UInt8]) -> String {
        var buffer = [CChar](repeating: 0, count: 64)
        _ = bytes.withUnsafeBytes { inet_ntop(bytes.count == 4 ? AF_INET : AF_INET6, $0.baseAddress, &buffer, 64) }
        return String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    @Test("written as inet_ntop writes them (RFC 5952): 5,000 random addresses, zero runs most of all")
    func text() throws {
        var generator = SystemRandomNumberGenerator()
        for _ in 0..<5_000 {
            let v4 = Bool.random(using: &generator)
            // Groups are mostly zero, so that runs of every length and place occur.
            let bytes = v4 ? (0..<4).map { _ in UInt8.random(in: 0...255, using: &generator) }
                : (0..<8).flatMap { _ -> [UInt8] in Int.random(in: 0..<3, using: &generator) == 0
                    ? [UInt8.random(in: 0...255, using: &generator), UInt8.random(in: 0...255, using: &generator)] : [0, 0] }
            let address = try #require(IPAddress(bytes: bytes))
            // inet_ntop writes ::ffff:a.b.c.d for mapped addresses; we never send those to nft.
            if !v4, bytes[0..<10].allSatisfy({ $0 == 0 }), bytes[10] == 0xFF, bytes[11] == 0xFF { continue }
            if !v4, bytes[0..<12].allSatisfy({ $0 == 0 }), !(bytes[12] == 0 && bytes[13] == 0) { continue } // ::a.b.c.d, deprecated
            #expect(address.description == Self.ntop(bytes), "\(bytes)")
        }
    }

    @Test("only 4 or 16 bytes make an address; local ones are never firewalled")
    func local() {
        #expect(IPAddress(bytes: [1, 2, 3]) == nil && IPAddress(bytes: []) == nil)
        #expect(IPAddress(bytes: [0, 0, 0, 0])!.isLocal && IPAddress(bytes: [127, 0, 0, 53])!.isLocal)
        #expect(IPAddress(bytes: [UInt8](repeating: 0, count: 16))!.isLocal)
        #expect(IPAddress(bytes: [UInt8](repeating: 0, count: 15) + [1])!.isLocal)
        #expect(!IPAddress(bytes: [10, 0, 0, 2])!.isLocal && !IPAddress(bytes: [0xFD] + [UInt8](repeating: 0, count: 14) + [2])!.isLocal)
    }
}
