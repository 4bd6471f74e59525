import Domain

/// The addresses of the public DNS-over-HTTPS (and DNS-over-TLS) services
/// browsers ship with or offer (Firefox's and Chrome's provider lists:
/// Cloudflare, Google, Quad9, NextDNS, AdGuard, OpenDNS, CleanBrowsing,
/// Mullvad, DNS.SB). While a user's block is up, that user's connections to
/// them on ports 443 and 853 are refused, so a browser falls back to the
/// system resolver, which the hosts layer answers. Plain DNS (port 53) to
/// them is untouched.
enum DNSOverHTTPSEndpoints {
    static let addresses: Set<IPAddress> = Set([
        // Cloudflare
        "1.1.1.1", "1.0.0.1", "1.1.1.2", "1.0.0.2", "1.1.1.3", "1.0.0.3", "162.159.36.1", "162.159.46.1",
        "2606:4700:4700::1111", "2606:4700:4700::1001", "2606:4700:4700::1112", "2606:4700:4700::1002",
        "2606:4700:4700::1113", "2606:4700:4700::1003",
        // Google
        "8.8.8.8", "8.8.4.4", "2001:4860:4860::8888", "2001:4860:4860::8844",
        // Quad9
        "9.9.9.9", "149.112.112.112", "9.9.9.11", "149.112.112.11", "2620:fe::fe", "2620:fe::9", "2620:fe::11", "2620:fe::fe:11",
        // NextDNS
        "45.90.28.0", "45.90.30.0", "2a07:a8c0::", "2a07:a8c1::",
        // AdGuard
        "94.140.14.14", "94.140.15.15", "94.140.14.140", "94.140.14.141", "2a10:50c0::ad1:ff", "2a10:50c0::ad2:ff",
        // OpenDNS
        "208.67.222.222", "208.67.220.220", "2620:119:35::35", "2620:119:53::53",
        // CleanBrowsing
        "185.228.168.9", "185.228.169.9", "185.228.168.168", "185.228.169.168", "2a0d:2a00:1::2", "2a0d:2a00:2::2",
        // Mullvad
        "194.242.2.2", "194.242.2.3", "2a07:e340::2", "2a07:e340::3",
        // DNS.SB
        "185.222.222.222", "45.11.45.11", "2a09::", "2a11::",
    ].compactMap(IPText.parse))
}
