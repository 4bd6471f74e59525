import Domain
import Foundation
import Testing

/// semantics.md, "A peer's damage is not mine", through the binary: another
/// device's change logs in this device's data folder, damaged every way a
/// disk, a sync tool or a person leaves them, never stop a command; `sync
/// status` and `doctor` name them; `doctor --repair` leaves them exactly as
/// they are (the sync tool would carry a move or a deletion to the device
/// they belong to).
@Suite("another device's damaged files, through the binary")
struct PeerDamageEndToEndTests {
    static let peer = "0b1c2d3e-0000-4000-8000-0000000000aa"

    /// What a peer's log can be found as.
    enum Damage: String, CaseIterable, CustomTestStringConvertible {
        case empty, garbage, torn, fifo, directory, sparse
        var testDescription: String {
            switch self {
            case .empty: "an empty file"
            case .garbage: "garbage bytes"
            case .torn: "a torn first line"
            case .fifo: "a FIFO"
            case .directory: "a directory"
            case .sparse: "a 1 GB sparse file"
            }
        }
    }

    @Test("every command works beside another device's damaged logs; sync status and doctor name them; doctor --repair leaves them be",
          arguments: Damage.allCases)
    func peerDamageIsNotMine(_ damage: Damage) throws {
        let retime = RetimeProcess()
        for command in [["group", "create", "work"], ["group", "block", "work", "example.com"], ["group", "set-allowance", "work", "5m"],
                        ["config", "set", "shield", "none"]] {
            #expect(try retime.run(command).status == 0)
        }
        // The peer's groups log reads (a group of its own), its slot log and
        // its allowances log do not.
        let folder = retime.file("devices/\(Self.peer)/changes")
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        let groupID = "0d67e89d-128a-4246-8aea-f325023e4f91"
        let at = Int64(Date().timeIntervalSince1970 * 1_000) - 60_000
        try Data((#"{"at":"\#(at)-0-\#(Self.peer)","changes":[{"set":"name","value":"reading"},{"set":"createdAt","value":"2026-11-20T10:00:00Z"},{"set":"id","value":"\#(groupID)"},{"set":"targets","value":[]},{"set":"updatedAt","value":"2026-11-20T10:00:00Z"}],"key":"\#(groupID)"}"# + "\n").utf8)
            .write(to: URL(fileURLWithPath: folder + "/groups.jsonl"))
        let damaged = [folder + "/session.jsonl", folder + "/allowances.jsonl"]
        for path in damaged { try Self.make(damage, at: path) }
        let before = try damaged.map(Self.fingerprint)

        for command in [["status"], ["start", "work", "--for", "10m"], ["status", "--json"], ["group", "list"], ["allow", "work", "1m"],
                        ["allow", "--cancel"], ["pause"], ["resume"], ["stop"], ["log"], ["report"]] {
            let outcome = try retime.run(command)
            #expect(outcome.status == 0, "retime \(command.joined(separator: " ")) exited \(outcome.status): \(outcome.err)")
        }
        #expect(try retime.run("group", "list").out.contains("reading"), "the peer's readable log is merged")

        let sync = try retime.run("sync", "status", "--json")
        #expect(sync.status == 0, "\(sync.err)")
        let unreadable = sync.json["unreadable"] as? [String] ?? []
        for path in damaged {
            let relative = String(path.dropFirst(retime.dataDirectory.count + 1))
            #expect(unreadable.contains(relative), "sync status names \(relative): \(sync.out)")
        }

        let doctor = try retime.run("doctor")
        #expect(doctor.status == 0, "another device's damage is a warning here, not a problem to mend: \(doctor.out) \(doctor.err)")
        #expect(doctor.out.contains("session.jsonl"), "doctor names the file: \(doctor.out)")
        let repaired = try retime.run("doctor", "--repair")
        #expect(repaired.status == 0, "\(repaired.out) \(repaired.err)")
        #expect(try damaged.map(Self.fingerprint) == before, "doctor --repair left another device's files exactly as they were")
        let strays = try FileManager.default.contentsOfDirectory(atPath: folder).filter { $0.contains(".corrupt-") }
        #expect(strays.isEmpty, "nothing moved aside in another device's folder: \(strays)")
    }

    static func make(_ damage: Damage, at path: String) throws {
        switch damage {
        case .empty: try Data().write(to: URL(fileURLWithPath: path))
        case .garbage: try Data([0x00, 0xFF, 0x7B, 0x0A, 0xC3, 0x28, 0x0A]).write(to: URL(fileURLWithPath: path))
        case .torn: try Data(#"{"at":"17"#.utf8).write(to: URL(fileURLWithPath: path))
        case .fifo: #expect(mkfifo(path, 0o600) == 0)
        case .directory: try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: false)
        case .sparse:
            let fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
            #expect(fd >= 0 && ftruncate(fd, 1 << 30) == 0)
            close(fd)
        }
    }

    /// The file's type, size, times and (when small and regular) bytes.
    static func fingerprint(_ path: String) throws -> String {
        var info = stat()
        guard lstat(path, &info) == 0 else { return "gone" }
        let bytes = (info.st_mode & S_IFMT) == S_IFREG && info.st_size < 1 << 20
            ? (FileManager.default.contents(atPath: path) ?? Data()).base64EncodedString() : ""
        return "\(info.st_mode) \(info.st_size) \(info.st_mtim.tv_sec).\(info.st_mtim.tv_nsec) \(info.st_ino) \(bytes)"
    }
}
