import Foundation
import Testing

/// Allowances kept by the system service (semantics.md, "Cycles and
/// allowances"): the service counts what each user spent, lowers even a
/// strict block for it and raises it itself at the end, with no user
/// process running; editing the user's files resets nothing. The client
/// runs unprivileged (`setpriv`), no daemon of the user's runs, and the
/// hosts file is the harness's own.
@Suite("allowances kept by the system service", .enabled(if: SystemServiceHarness.available, "needs root and setpriv"))
struct SystemServiceAllowanceTests {
    /// Every file of the user's data directory that says anything about
    /// allowances, edited as the user could: the spending records deleted,
    /// the group's and the session's allowance raised to a day.
    static func editAllowances(_ user: RetimeProcess) throws {
        let files = FileManager.default.enumerator(atPath: user.dataDirectory)?.compactMap { $0 as? String } ?? []
        for relative in files {
            let path = user.dataDirectory + "/" + relative
            var isDirectory: ObjCBool = false
            guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory), !isDirectory.boolValue else { continue }
            if relative.contains("allowance") { try FileManager.default.removeItem(atPath: path); continue }
            guard let text = try? String(contentsOfFile: path, encoding: .utf8) else { continue }
            let edited = text.replacingOccurrences(of: #""dailyAllowance":3"#, with: #""dailyAllowance":86400"#)
                .replacingOccurrences(of: #""allowanceSeconds":3"#, with: #""allowanceSeconds":86400"#)
            if edited != text { try edited.write(toFile: path, atomically: false, encoding: .utf8) }
        }
    }

    @Test("a strict block is lowered for an allowance the service counts and raised by the service at its end; wiping the user's records gains nothing")
    func strictAllowance() throws {
        let system = try SystemServiceHarness()
        // The service counts spending per local day: not one that turns mid-test.
        let service = try system.start(environment: ["TZ": LocalNoon.zone()])
        defer { system.stop(service) }
        let user = system.client().atLocalNoon()
        try user.run("group", "create", "work", "--block", "example.com")
        #expect(try user.run("group", "set-allowance", "work", "3s").status == 0)
        #expect(try user.run("start", "work", "--for", "30m", "--strict").status == 0)
        #expect(system.blocked == ["example.com"])

        let asked = Date()
        let allow = try user.run("allow", "work", "1s")
        #expect(allow.status == 0, "\(allow.out) \(allow.err)")
        #expect(system.blocked.isEmpty || Date().timeIntervalSince(asked) >= 1, "down for the allowance")
        // Back by the service alone: no daemon, no command of the user's.
        #expect(eventually(within: 10) { system.blocked == ["example.com"] })
        let late = Date().timeIntervalSince(asked) - 1
        print("raised \(Int(late * 1_000)) ms after the allowance's end (an upper bound: counted from before allow started)")

        try Self.editAllowances(user)
        let second = try user.run("allow", "work", "2s")
        #expect(second.status == 0, "2 s are left by the service's count: \(second.out) \(second.err)")
        #expect(eventually(within: 10) { system.blocked == ["example.com"] })

        // All 3 s spent by the service's count, whatever the user's files say now.
        try Self.editAllowances(user)
        let third = try user.run("allow", "work", "1s")
        #expect(third.status != 0 && third.err.contains("spent"), "\(third.out) \(third.err)")
        #expect(system.blocked == ["example.com"])
        let blocks = try #require(try user.run("system", "status", "--json").json["blocks"] as? [[String: Any]])
        #expect(blocks.count == 1 && blocks.first?["allowanceUntil"] is NSNull, "up, no allowance running: \(blocks)")
    }

    @Test("allow --cancel raises the service's block at once")
    func cancel() throws {
        let system = try SystemServiceHarness()
        // The service counts spending per local day: not one that turns mid-test.
        let service = try system.start(environment: ["TZ": LocalNoon.zone()])
        defer { system.stop(service) }
        let user = system.client().atLocalNoon()
        try user.run("group", "create", "work", "--block", "example.com")
        try user.run("group", "set-allowance", "work", "10m")
        #expect(try user.run("start", "work", "--for", "30m", "--strict").status == 0)
        #expect(try user.run("allow", "work", "5m").status == 0)
        #expect(system.blocked.isEmpty)
        let down = try #require(try user.run("system", "status", "--json").json["blocks"] as? [[String: Any]])
        #expect(down.first?["allowanceUntil"] is String, "system status says until when: \(down)")
        let cancel = try user.run("allow", "--cancel")
        #expect(cancel.status == 0, "\(cancel.out) \(cancel.err)")
        #expect(system.blocked == ["example.com"])
    }
}
