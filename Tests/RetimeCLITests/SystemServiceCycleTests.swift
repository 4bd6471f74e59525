#if canImport(Glibc)
import Glibc
#endif
import Foundation
import Testing

/// A strict cycle's phases kept by the system service (docs/cycles.md,
/// "With the system service"): the service lowers the block at each break
/// and raises it at the break's end itself, with no process of the user's
/// running, and refuses any lowering in a work phase. The client runs
/// unprivileged (`setpriv`), the hosts file is the harness's own.
@Suite("strict cycles held by the system service", .enabled(if: SystemServiceHarness.available, "needs root and setpriv"))
struct SystemServiceCycleTests {
    @Test("a strict --cycle 2s/2s --rounds 2 session: the service lowers the block at the break and raises it at its end, no daemon running")
    func breakOnTime() throws {
        let system = try SystemServiceHarness()
        let service = try system.start()
        defer { system.stop(service) }
        let user = system.client()
        try user.run("group", "create", "work", "--block", "example.com")
        let started = try user.run("start", "work", "--cycle", "2s/2s", "--rounds", "2", "--strict", "--json")
        #expect(started.status == 0, "\(started.out) \(started.err)")
        let session = try #require(started.json["session"] as? [String: Any])
        let start = try #require(DaemonEndToEndTests.instant(session["startedAt"]))
        #expect(system.blocked == ["example.com"])
        // Poll the hosts file past each edge: lateness is when it was seen
        // changed, less the edge's instant (the session's start as recorded).
        var lateness: [Double] = []
        for (offset, up) in [(2.0, false), (4.0, true), (6.0, false)] {
            let due = start + offset
            let deadline = due + 3
            while (system.blocked == ["example.com"]) != up, Date() < deadline { usleep(1_000) }
            let seen = Date()
            #expect((system.blocked == ["example.com"]) == up, "the block is \(up ? "up" : "down") after \(offset) s")
            lateness.append(seen.timeIntervalSince(due))
        }
        print("service cycle edges late by (ms):", lateness.map { Int(($0 * 1_000).rounded()) })
        #expect(lateness.allSatisfy { $0 > -0.005 }, "no edge moves the block early: \(lateness)")
        #expect(lateness.allSatisfy { $0 < 1 }, "each edge on the second: \(lateness)")
    }

    @Test("in a strict cycle's work phase, every edit of the user's data folder and next, pause, stop lower nothing (a guard: it held before too)")
    func workPhaseHolds() throws {
        let system = try SystemServiceHarness()
        let service = try system.start()
        defer { system.stop(service) }
        let user = system.client()
        try user.run("group", "create", "work", "--block", "example.com")
        #expect(try user.run("start", "work", "--cycle", "30m/5m", "--rounds", "2", "--strict").status == 0)
        // Every file of the data folder: the session made not strict and
        // its cycle's work phase over, as an editor could.
        let files = FileManager.default.enumerator(atPath: user.dataDirectory)?.compactMap { $0 as? String } ?? []
        for relative in files {
            let path = user.dataDirectory + "/" + relative
            guard let text = try? String(contentsOfFile: path, encoding: .utf8) else { continue }
            let edited = text.replacingOccurrences(of: "\"strict\":true", with: "\"strict\":false")
            if edited != text { try edited.write(toFile: path, atomically: false, encoding: .utf8) }
        }
        for command in [["next"], ["pause"], ["stop"]] {
            _ = try user.run(command)
            #expect(system.blocked == ["example.com"], "after \(command)")
        }
        try FileManager.default.removeItem(atPath: user.dataDirectory)
        _ = try user.run("doctor", "--repair")
        _ = try user.run("stop")
        #expect(system.blocked == ["example.com"], "the data folder removed")
    }

    @Test("next from a strict cycle's break into work reaches the service: the block is raised at once, and the next work phase holds")
    func nextEndsTheBreak() throws {
        let system = try SystemServiceHarness()
        let service = try system.start()
        defer { system.stop(service) }
        let user = system.client()
        try user.run("group", "create", "work", "--block", "example.com")
        #expect(try user.run("start", "work", "--cycle", "2s/30s", "--rounds", "2", "--strict").status == 0)
        #expect(eventually(within: 10) { system.blocked.isEmpty }, "the break, by the service")
        // Past the break's first second (a raise then is taken for the
        // user's daemon reaching the edge late, not for next).
        Thread.sleep(forTimeInterval: 1.5)
        let next = try user.run("next")
        #expect(next.status == 0, "\(next.out) \(next.err)")
        #expect(system.blocked == ["example.com"], "raised at once")
        #expect(try user.run("stop").status != 0)
        #expect(system.blocked == ["example.com"], "the last work phase holds")
    }
}
