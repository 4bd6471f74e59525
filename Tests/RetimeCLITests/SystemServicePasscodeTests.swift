import Glibc
import Foundation
import Testing

@Suite("The passcode the system service keeps", .enabled(if: SystemServiceHarness.available, "needs root and setpriv"))
struct SystemServicePasscodeTests {
    @Test("set with the service in use, the service keeps its own hash; one swapped into the user's data lifts nothing")
    func swappedHash() throws {
        let system = try SystemServiceHarness()
        let service = try system.start()
        defer { system.stop(service) }
        let user = system.client()
        #expect(try user.run(["auth", "set-passcode", "--stdin"], input: "right-one\n").status == 0)
        #expect(FileManager.default.fileExists(atPath: system.state + "/users/65534/auth.json"), "the service keeps its own hash")
        try user.run("group", "create", "work", "--block", "example.com")

        // A hash of the user's choosing, made where no service answers, swapped
        // into the data: as the shared passcode (another device's record) and
        // in the machine's suite, which then no longer notes the service's.
        var offline = system.client()
        offline.environment["RETIME_SHIELD_SOCKET"] = system.root + "/nothing.sock"
        #expect(try offline.run(["auth", "set-passcode", "--stdin"], input: "chosen-one\n").status == 0)
        #expect(try user.run("start", "work", "--for", "30m", "--strict").status == 0)
        let machineSuite = try user.deviceFile("store/auth.json")
        let offlineDevice = try FileManager.default.contentsOfDirectory(atPath: offline.file("devices"))[0]
        try FileManager.default.copyItem(atPath: offline.file("devices/\(offlineDevice)"), toPath: user.file("devices/\(offlineDevice)"))
        _ = chown(user.file("devices/\(offlineDevice)"), 65_534, 65_534)
        _ = chown(user.file("devices/\(offlineDevice)/passcode.json"), 65_534, 65_534)
        try Data(Self.machineSuite(hash: nil).utf8).write(to: URL(fileURLWithPath: machineSuite))
        let cheat = try user.run(["stop", "--passcode-stdin", "--json"], input: "chosen-one\n")
        #expect(cheat.status != 0, "the service's hash decides: \(cheat.err)")
        #expect(system.blocked == ["example.com"])
        #expect((try user.run("system", "status", "--json").json["blocks"] as? [[String: Any]])?.count == 1)
    }

    @Test("stop --passcode-stdin of a strict session goes to the service, which lowers it with the right passcode")
    func earlyEnd() throws {
        let system = try SystemServiceHarness()
        let service = try system.start()
        defer { system.stop(service) }
        let user = system.client()
        #expect(try user.run(["auth", "set-passcode", "--stdin"], input: "right-one\n").status == 0)
        try user.run("group", "create", "work", "--block", "example.com")
        #expect(try user.run("start", "work", "--for", "30m", "--strict").status == 0)
        #expect(try user.run(["stop", "--passcode-stdin"], input: "wrong-one\n").status == 3)
        #expect(system.blocked == ["example.com"])
        let stop = try user.run(["stop", "--passcode-stdin"], input: "right-one\n")
        #expect(stop.status == 0, "\(stop.err)")
        #expect(system.blocked.isEmpty)
        // Changed and removed there too: the old one no longer counts with the service.
        #expect(try user.run(["auth", "change-passcode", "--stdin"], input: "right-one\nnew-one-9\n").status == 0)
        #expect(try user.run(["auth", "remove-passcode", "--stdin"], input: "new-one-9\n").status == 0)
        #expect(try user.run(["auth", "set-passcode", "--stdin"], input: "third-one\n").status == 0, "the service's was removed too")
    }

    /// A machine `auth` suite as an older retime wrote it: the hash (if
    /// any) in it, and no note that the service holds the passcode.
    static func machineSuite(hash: String?) -> String {
        let hash = hash.map { ",\"passcodeHash\":\"\($0)\"" } ?? ""
        return "{\"format\":\"retime.suite\",\"version\":1,\"values\":{\"state\":{\"failedAttempts\":0,\"shieldAuthorization\":\"notDetermined\"\(hash)}}}\n"
    }

    /// Every file under `directory` whose bytes hold a crypt(3) hash.
    static func filesHoldingAHash(under directory: String) -> [String] {
        let files = FileManager.default.enumerator(atPath: directory)?.compactMap { $0 as? String } ?? []
        return files.filter { name in
            guard let data = FileManager.default.contents(atPath: directory + "/" + name) else { return false }
            return String(decoding: data, as: UTF8.self).contains("$y$") || String(decoding: data, as: UTF8.self).contains("$pbkdf2")
        }
    }

    @Test("issue 28: with the service, set-passcode leaves no hash in the user's files, and every unlock is counted by the service's lockout")
    func noHashInTheUsersData() throws {
        let system = try SystemServiceHarness()
        let service = try system.start()
        defer { system.stop(service) }
        let user = system.client()
        #expect(try user.run(["auth", "set-passcode", "--stdin"], input: "2468\n").status == 0)
        #expect(Self.filesHoldingAHash(under: user.dataDirectory) == [], "no hash to crack offline in the user's data")
        #expect(Self.filesHoldingAHash(under: system.state + "/users/65534") == ["auth.json"], "the service holds it")
        #expect(try user.run("auth", "status", "--json").json["passcodeSet"] as? Bool == true)
        #expect(try user.run("auth", "status").out.contains("passcode: set (held by the system service)"))

        try user.run("group", "create", "work", "--block", "example.com")
        #expect(try user.run("start", "work", "--for", "30m", "--strict").status == 0)
        for guess in ["1111", "2222", "3333", "4444", "5555"] {
            #expect(try user.run(["stop", "--passcode-stdin"], input: guess + "\n").status == 3)
        }
        // The right one now is refused: the service's lockout heard the five.
        let locked = try user.run(["stop", "--passcode-stdin", "--json"], input: "2468\n")
        #expect(locked.status == 3)
        #expect(locked.err.contains("locked out"), "\(locked.err)")
        #expect(system.blocked == ["example.com"])
        let status = try user.run("auth", "status", "--json").json
        #expect(status["failedAttempts"] as? Int == 5 && status["lockedUntil"] is String, "auth status shows the service's lockout: \(status)")
        let serviceAudit = (try? String(contentsOfFile: system.state + "/users/65534/audit.jsonl", encoding: .utf8)) ?? ""
        // Refusals in a row are one line with their count (the service's audit is capped).
        let refused = serviceAudit.split(separator: "\n").compactMap { line -> Int? in
            guard let entry = try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any],
                  entry["success"] as? Bool == false else { return nil }
            return entry["count"] as? Int ?? 1
        }.reduce(0, +)
        #expect(refused >= 6, "\(serviceAudit)")
    }

    @Test("issue 28: a hash left in the user's data while the service holds the passcode is removed by the next auth command")
    func oldLocalHashRemoved() throws {
        let system = try SystemServiceHarness()
        let service = try system.start()
        defer { system.stop(service) }
        let user = system.client()
        #expect(try user.run(["auth", "set-passcode", "--stdin"], input: "right-one\n").status == 0)
        // The user's data as an older retime left it: the hash in both places.
        var offline = system.client()
        offline.environment["RETIME_SHIELD_SOCKET"] = system.root + "/nothing.sock"
        #expect(try offline.run(["auth", "set-passcode", "--stdin"], input: "right-one\n").status == 0)
        let record = try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: try offline.deviceFile("passcode.json")))) as? [String: Any]
        let hash = try #require(record?["hash"] as? String)
        try Data(Self.machineSuite(hash: hash).utf8).write(to: URL(fileURLWithPath: try user.deviceFile("store/auth.json")))
        #expect(Self.filesHoldingAHash(under: user.dataDirectory) == [String(try user.deviceFile("store/auth.json").dropFirst(user.dataDirectory.count + 1))])

        let status = try user.run("auth", "status")
        #expect(status.status == 0)
        #expect(status.out.contains("passcode: set (held by the system service)"), "\(status.out)")
        #expect(Self.filesHoldingAHash(under: user.dataDirectory) == [], "the local copy is gone, with the store's backups of it")
    }

    @Test("issue 28: a passcode set before the service kept passcodes moves to the service at its next change")
    func localPasscodeMovesOnChange() throws {
        let system = try SystemServiceHarness()
        let service = try system.start()
        defer { system.stop(service) }
        var user = system.client()
        user.environment["RETIME_SHIELD_SOCKET"] = system.root + "/nothing.sock"
        #expect(try user.run(["auth", "set-passcode", "--stdin"], input: "old-one-1\n").status == 0)
        #expect(Self.filesHoldingAHash(under: user.dataDirectory) == [String(try user.deviceFile("passcode.json").dropFirst(user.dataDirectory.count + 1))], "no service: the data holds it")
        user.environment["RETIME_SHIELD_SOCKET"] = system.socket
        #expect(try user.run(["auth", "change-passcode", "--stdin"], input: "old-one-1\nnew-one-2\n").status == 0)
        #expect(Self.filesHoldingAHash(under: user.dataDirectory) == [])
        try user.run("group", "create", "work", "--block", "example.com")
        #expect(try user.run("start", "work", "--for", "30m", "--strict").status == 0)
        #expect(try user.run(["stop", "--passcode-stdin"], input: "old-one-1\n").status == 3)
        let stop = try user.run(["stop", "--passcode-stdin"], input: "new-one-2\n")
        #expect(stop.status == 0, "\(stop.err)")
        #expect(system.blocked.isEmpty)
    }
}
