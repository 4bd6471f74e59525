import Foundation
import Testing

/// What a command opens, watched by `strace` on the real binary: `start`
/// reads each data file once (the store's parsed versions serve every
/// later read, and its compare-and-swap looks at the file's stamp under the
/// lock rather than reading it again).
@Suite("Files a command opens", .enabled(if: FileManager.default.isExecutableFile(atPath: "/usr/bin/strace")))
struct FileAccessTests {
    /// The data files `arguments` opened, each with how many times.
    func opens(_ retime: RetimeProcess, _ arguments: String...) throws -> [String: Int] {
        let trace = retime.dataDirectory + "-trace"
        var traced = retime
        traced.launcher = ["/usr/bin/strace", "-f", "-qq", "-e", "trace=openat", "-o", trace]
        let outcome = try traced.run(arguments)
        #expect(outcome.status == 0, "\(outcome.err)")
        let lines = try String(contentsOfFile: trace, encoding: .utf8).split(separator: "\n")
        var counts: [String: Int] = [:]
        for line in lines where !line.contains("ENOENT") {
            guard let open = line.range(of: "\"" + retime.dataDirectory + "/"),
                  let close = line[open.upperBound...].firstIndex(of: "\"") else { continue }
            let name = String(line[open.upperBound..<close])
            // Temp files being written and locks are not reads of the data.
            guard name.hasSuffix(".json") || (name.hasSuffix(".jsonl") && name.hasPrefix("devices/")) else { continue }
            counts[name, default: 0] += 1
        }
        return counts
    }

    @Test("start opens the change logs of groups, config and session, the shield's record and the layout once each, with a previous session's files in place")
    func startOpensEachFileOnce() throws {
        let retime = RetimeProcess()
        try retime.run("group", "create", "work")
        try retime.run("group", "block", "work", "example.com")
        try retime.run("config", "set", "shield", "none")
        try retime.run("start", "work", "--for", "25m")
        try retime.run("stop")
        let counts = try opens(retime, "start", "work", "--for", "25m")
        // The session's log twice: read once, and opened once to append the new session.
        let changes = try retime.changeLog("groups").dropFirst(retime.dataDirectory.count + 1).dropLast("groups.jsonl".count)
        // This machine's own suites in its folder: the shield's record and its settings.
        let device = changes.dropLast("changes/".count)
        #expect(counts == ["\(changes)groups.jsonl": 1, "\(changes)session.jsonl": 2, "\(device)events.jsonl": 1,
                           "\(device)store/shield.json": 1, "\(device)store/machine.json": 1, "layout.json": 1])
    }

    /// `stop` writes the slot twice (the ended session, then the empty
    /// slot): before, the second write read back, and parsed, the ended
    /// session the first had just appended.
    @Test("stop reads the session's log once, and opens it once for each of its two writes")
    func stopReadsTheSlotOnce() throws {
        let retime = RetimeProcess()
        try retime.run("group", "create", "work")
        try retime.run("config", "set", "shield", "none")
        try retime.run("start", "work", "--for", "25m")
        try retime.run("stop")
        try retime.run("start", "work", "--for", "25m")
        let counts = try opens(retime, "stop")
        let session = try retime.changeLog("session").dropFirst(retime.dataDirectory.count + 1)
        #expect(counts[String(session)] == 3, "\(counts)")
    }

    /// `report` grouped by day names no group: the groups' names were
    /// read (every device's groups log merged) only to label allowance
    /// spending, which most folders have none of.
    @Test("report with no allowance spent does not read the groups' logs")
    func reportLeavesGroupsUnread() throws {
        let retime = RetimeProcess()
        try retime.run("group", "create", "work")
        try retime.run("config", "set", "shield", "none")
        try retime.run("track", "work", "--from", "2026-10-02T09:00:00Z", "--to", "2026-10-02T09:25:00Z")
        let counts = try opens(retime, "report", "--since", "2026-10-01")
        #expect(!counts.keys.contains { $0.hasSuffix("groups.jsonl") || $0.hasSuffix("groups.json") }, "\(counts)")
    }

    /// Before, every suite a command read listed `devices/` and each
    /// device's `changes/` again (a `status` with a session: four times).
    /// A folder changed within the kernel's file-time tick is listed again
    /// (it may hide a change), so the test waits, polling, until the
    /// folders are older than that.
    @Test("status lists the devices folder once, however many suites it reads, with two devices' logs")
    func devicesListedOnce() throws {
        let retime = RetimeProcess()
        var other = retime
        other.environment["HOME"] = retime.dataDirectory + "-other-home"
        try other.run("group", "create", "elsewhere")
        try retime.run("group", "create", "work")
        try retime.run("config", "set", "shield", "none")
        try retime.run("start", "work", "--for", "25m")
        let devices = retime.dataDirectory + "/devices"
        let folders = [devices] + ((try? FileManager.default.contentsOfDirectory(atPath: devices)) ?? []).map { devices + "/" + $0 + "/changes" }
        func settled() -> Bool {
            folders.allSatisfy { path in
                var info = stat()
                guard stat(path, &info) == 0 else { return true }
                return Date().timeIntervalSince1970 - (Double(info.st_ctim.tv_sec) + Double(info.st_ctim.tv_nsec) / 1e9) > 0.3
            }
        }
        let deadline = Date().addingTimeInterval(10)
        while !settled(), Date() < deadline { usleep(20_000) }
        let trace = retime.dataDirectory + "-trace-listings"
        var traced = retime
        traced.launcher = ["/usr/bin/strace", "-f", "-qq", "-e", "trace=openat", "-o", trace]
        let status = try traced.run("status")
        #expect(status.status == 0 && status.out.contains("work"), "\(status.out)\(status.err)")
        let lines = try String(contentsOfFile: trace, encoding: .utf8).split(separator: "\n").filter { $0.contains("O_DIRECTORY") }
        #expect(folders.count == 3, "\(folders)")
        for folder in folders {
            #expect(lines.filter { $0.contains("\"" + folder + "\"") }.count == 1, "\(folder): \(lines.joined(separator: "\n"))")
        }
    }
}
