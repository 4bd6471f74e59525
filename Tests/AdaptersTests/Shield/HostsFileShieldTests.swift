#if canImport(Glibc)
import Glibc
#endif
import Adapters
import Domain
import Foundation
import PortContracts
import Testing

@Suite("The hosts-file shield, on temporary files (never /etc/hosts)")
struct HostsFileShieldTests {
    static let originals: [String] = [
        "127.0.0.1 localhost\n::1 localhost\n",
        "127.0.0.1 localhost\r\n# a comment\r\n192.168.1.5 nas\r\n",
        "127.0.0.1 localhost\n# no final newline",
        "",
    ]

    func file(_ content: String) -> String {
        let path = TemporaryDirectory().file("hosts")
        #expect(FileManager.default.createFile(atPath: path, contents: Data(content.utf8)))
        return path
    }

    func bytes(_ path: String) -> [UInt8] { Array((try? Data(contentsOf: URL(fileURLWithPath: path))) ?? Data()) }

    @Test(arguments: ShieldContract.checks)
    func contract(_ check: ContractCheck<ShieldContract.Factory>) async throws {
        for original in Self.originals {
            let path = file(original)
            try await check.run { HostsFileShield(path: path) }
        }
    }

    @Test("raise maps each domain and its www. to 0.0.0.0 and ::; lower restores every byte", arguments: originals)
    func roundTrip(original: String) async throws {
        let path = file(original)
        let shield = HostsFileShield(path: path)
        let session = SessionID()
        try await shield.raise([try Target(parsing: "example.com"), try Target(parsing: "app:slack")], for: session)
        let raised = String(decoding: bytes(path), as: UTF8.self)
        #expect(raised.hasPrefix(original))
        for line in ["0.0.0.0 example.com", ":: example.com", "0.0.0.0 www.example.com", ":: www.example.com"] {
            #expect(raised.contains(line))
        }
        #expect(!raised.contains("0.0.0.0 slack"), "apps are not hosts")
        if original.contains("\r\n") { #expect(!raised.replacingOccurrences(of: "\r\n", with: "").contains("\n")) }
        try await shield.raise([try Target(parsing: "example.com"), try Target(parsing: "app:slack")], for: session)
        #expect(String(decoding: bytes(path), as: UTF8.self) == raised, "raising again changes nothing")
        try await shield.lower(for: session)
        #expect(bytes(path) == Array(original.utf8))
    }

    @Test("a block marked by another owner is never lifted or replaced; its own owner (a path with spaces) still lowers it")
    func foreignOwner() async throws {
        let path = file("127.0.0.1 localhost\n")
        let mine = HostsFileShield(path: path, owner: "/home/a b/retime"), theirs = HostsFileShield(path: path, owner: "/tmp/other")
        let session = SessionID()
        try await mine.raise([try Target(parsing: "example.com")], for: session)
        let raised = bytes(path)
        #expect(try await mine.state()?.session == session)
        #expect(try await theirs.state() == nil, "another owner's block is none of theirs")
        try await theirs.lower(for: session)
        await #expect(throws: HostsFileShield.ForeignBlock.self) { try await theirs.raise([], for: SessionID()) }
        #expect(bytes(path) == raised)
        try await mine.lower(for: session)
        #expect(bytes(path) == Array("127.0.0.1 localhost\n".utf8))
    }

    @Test("a block left by a crash is replaced on raise and removed on lower, the rest untouched")
    func staleBlock() async throws {
        let original = "127.0.0.1 localhost\r\n"
        let stale = SessionID()
        let path = file(original + "# retime begin \(stale) (added by retime; do not edit)\r\n0.0.0.0 old.example\r\n# retime end\r\n")
        let shield = HostsFileShield(path: path)
        #expect(try await shield.state()?.session == stale)
        let session = SessionID()
        try await shield.raise([try Target(parsing: "news.example.org")], for: session)
        let text = String(decoding: bytes(path), as: UTF8.self)
        #expect(!text.contains("old.example") && text.components(separatedBy: "# retime begin").count == 2)
        try await shield.lower(for: session)
        #expect(bytes(path) == Array(original.utf8))
    }

    @Test("a begin marker without its end is left alone rather than guessed at")
    func unterminated() async throws {
        let original = "127.0.0.1 localhost\n# retime begin by hand\n10.0.0.1 keep.me\n"
        let path = file(original)
        let shield = HostsFileShield(path: path)
        let session = SessionID()
        try await shield.raise([try Target(parsing: "example.com")], for: session)
        try await shield.lower(for: session)
        #expect(bytes(path) == Array(original.utf8))
    }

    @Test("the file keeps its mode")
    func mode() async throws {
        let path = file("127.0.0.1 localhost\n")
        chmod(path, 0o644)
        try await HostsFileShield(path: path).raise([try Target(parsing: "example.com")], for: SessionID())
        let mode = (try FileManager.default.attributesOfItem(atPath: path)[.posixPermissions] as? NSNumber)?.intValue
        #expect(mode == 0o644)
    }
}
