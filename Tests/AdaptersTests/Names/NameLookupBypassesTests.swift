@testable import Adapters
import Foundation
import Testing

/// What resolves names out of the name layer's sight, read from files a
/// test gives (never the host's /etc or its processes).
@Suite("NameLookupBypasses")
struct NameLookupBypassesTests {
    let directory: String

    init() throws {
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("retime-bypass-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: directory + "/proc/1", withIntermediateDirectories: true)
        try "systemd\n".write(toFile: directory + "/proc/1/comm", atomically: true, encoding: .utf8)
    }

    func nsswitch(_ text: String) throws -> String {
        try text.write(toFile: directory + "/nsswitch.conf", atomically: true, encoding: .utf8)
        return directory + "/nsswitch.conf"
    }

    @Test("nss-resolve in the hosts line is found and named, its actions left out; a comment or another line is not")
    func nssResolve() throws {
        let found = NameLookupBypasses(nsswitch: try nsswitch("passwd: files\nhosts: mymachines resolve [!UNAVAIL=return] files dns\n"),
                                       proc: directory + "/proc").findings()
        #expect(found.count == 1 && found[0].contains("nss-resolve") && found[0].contains("hosts: mymachines resolve files dns"), "\(found)")
        for text in ["hosts: files dns\n", "# hosts: files resolve\nhosts: files dns\n", "networks: resolve\nhosts: files\n", ""] {
            #expect(NameLookupBypasses(nsswitch: try nsswitch(text), proc: directory + "/proc").findings().isEmpty, "\(text)")
        }
        #expect(NameLookupBypasses(nsswitch: directory + "/missing", proc: directory + "/missing").findings().isEmpty)
    }

    @Test("a running nscd is found by its command name, with its pid")
    func nscd() throws {
        try FileManager.default.createDirectory(atPath: directory + "/proc/4242", withIntermediateDirectories: true)
        try "nscd\n".write(toFile: directory + "/proc/4242/comm", atomically: true, encoding: .utf8)
        let found = NameLookupBypasses(nsswitch: try nsswitch("hosts: files dns\n"), proc: directory + "/proc").findings()
        #expect(found.count == 1 && found[0].contains("nscd (pid 4242)"), "\(found)")
    }

    @Test("a finding is reused for 10 s (every answer carries the reports), then read again")
    func reused() throws {
        let bypasses = NameLookupBypasses(nsswitch: try nsswitch("hosts: files dns\n"), proc: directory + "/proc")
        let now = Date()
        #expect(bypasses.findings(at: now).isEmpty)
        _ = try nsswitch("hosts: files resolve dns\n")
        #expect(bypasses.findings(at: now.addingTimeInterval(9)).isEmpty)
        #expect(bypasses.findings(at: now.addingTimeInterval(11)).count == 1)
    }
}
