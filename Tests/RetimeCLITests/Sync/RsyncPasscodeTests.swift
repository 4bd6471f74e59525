import Foundation
import Testing

/// The shared passcode with the plainest sync there is: rsync copying two
/// devices' folders into each other (no `--delete`). Set on A, it ends a
/// strict session on B after a copy; changed on B, the old one is refused
/// on A after the copy back; and the old hash leaves both folders.
@Suite("the passcode copied both ways by rsync", .enabled(if: RsyncPair.available, "needs rsync"))
struct RsyncPasscodeTests {
    func passcode(_ device: SharedFolderDevice, _ arguments: [String], _ input: String) throws -> RetimeProcess.Outcome {
        try device.retime.run(arguments + ["--json"], input: input)
    }

    /// Every file of `folder` whose bytes hold `text`, relative to it.
    func files(under folder: String, holding text: String) -> [String] {
        (FileManager.default.enumerator(atPath: folder)?.compactMap { $0 as? String } ?? []).filter { name in
            FileManager.default.contents(atPath: folder + "/" + name).map { String(decoding: $0, as: UTF8.self).contains(text) } ?? false
        }
    }

    @Test("set on A, used on B; changed on B, refused on A; no copy keeps the old hash")
    func followsTheCopies() throws {
        try RsyncPair.run { pair in
            let a = try SharedFolderDevice(name: "a", dataDirectory: pair.folderA)
            let b = try SharedFolderDevice(name: "b", dataDirectory: pair.folderB)
            for device in [a, b] { try device.must("config", "set", "shield", "none") }
            #expect(try passcode(a, ["auth", "set-passcode", "--stdin"], "quokka\n").status == 0)
            try a.must("group", "create", "focus", "--block", "example.com")
            let record = try String(contentsOfFile: pair.folderA + "/devices/\(a.id)/passcode.json", encoding: .utf8)
            let oldHash = try #require(record.split(separator: "\"").first { $0.hasPrefix("$") }.map(String.init))

            try pair.copy(from: a, to: b)
            try b.must("start", "focus", "--for", "1h", "--strict")
            #expect(try passcode(b, ["stop", "--passcode-stdin"], "wombat\n").errorCode == "auth.wrongPasscode")
            #expect(try passcode(b, ["stop", "--passcode-stdin"], "quokka\n").status == 0)
            #expect(try passcode(b, ["auth", "change-passcode", "--stdin"], "quokka\nwombat\n").status == 0)

            try pair.copy(from: b, to: a)
            try a.must("start", "focus", "--for", "1h", "--strict")
            #expect(try passcode(a, ["stop", "--passcode-stdin"], "quokka\n").errorCode == "auth.wrongPasscode")
            #expect(try passcode(a, ["stop", "--passcode-stdin"], "wombat\n").status == 0)
            // A's checks took the hash out of its own record; the copy carries that to B.
            try pair.copy(from: a, to: b)
            for folder in [pair.folderA, pair.folderB] {
                #expect(files(under: folder, holding: oldHash).isEmpty, "\(folder): \(files(under: folder, holding: oldHash))")
            }
        }
    }
}
