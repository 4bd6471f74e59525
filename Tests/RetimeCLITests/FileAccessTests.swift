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
}
