import Domain
#if canImport(Glibc)
import Glibc
#endif

/// Addresses as text, the way `nft` and configuration files write them.
public enum IPText {
    public static func parse(_ text: String) -> IPAddress? {
        var v4 = in_addr(), v6 = in6_addr()
        if inet_pton(AF_INET, text, &v4) == 1 { return IPAddress(bytes: withUnsafeBytes(of: &v4) { Array($0) }) }
        if inet_pton(AF_INET6, text, &v6) == 1 { return IPAddress(bytes: withUnsafeBytes(of: &v6) { Array($0) }) }
        return nil
    }
}
