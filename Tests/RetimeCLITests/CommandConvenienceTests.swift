@testable import RetimeCLI
import Domain
import Foundation
import Testing

/// Small things a new user hits (issue 19, item 5), through the binary.
@Suite("command conveniences")
struct CommandConvenienceTests {
    let retime = RetimeProcess()

    @Test("schedule add warns of an overlap and of a warning lead as long as the interval; schedule show gives the next start (issue 29)",
          .enabled(if: AuthEndToEndTests.hasFaketime, "needs faketime and a dynamically linked binary"))
    func scheduleAdvice() throws {
        var retime = retime
        retime.launcher = ["/usr/bin/faketime", "2026-11-24 20:08:00"]   // a Tuesday evening
        retime.environment["TZ"] = "UTC"
        #expect(try retime.run("group", "create", "work").status == 0)
        #expect(try retime.run("schedule", "add", "mornings", "--group", "work", "--from", "09:00", "--to", "12:00", "--days", "weekdays").status == 0)
        let late = try retime.run("schedule", "add", "late", "--group", "work", "--from", "11:00", "--to", "13:00", "--days", "mon,sat", "--json")
        #expect(late.status == 0, "a warning, not a refusal")
        #expect((late.json["warnings"] as? [String])?.first?.contains("overlaps 'mornings' on mon") == true, "\(late.out)")
        let tiny = try retime.run("schedule", "add", "tiny", "--group", "work", "--from", "14:00", "--to", "14:03", "--warn", "5m")
        #expect(tiny.prose.contains("Warning: its warning lead (5m) is as long as its interval (3m) or longer"), "\(tiny.out)")
        #expect(tiny.out.split(separator: "\n").allSatisfy { $0.count <= 80 }, "within 80 columns: \(tiny.out)")
        let show = try retime.run("schedule", "show", "mornings")
        #expect(show.out.contains("next: Wed 2026-11-25 09:00 to 12:00"), "\(show.out)")
        let json = try retime.run("schedule", "show", "mornings", "--json").json["schedule"] as? [String: Any]
        #expect((json?["next"] as? [String: Any])?["start"] as? String == "2026-11-25T09:00:00Z")
    }

    @Test("a mistyped --data-dir or $RETIME_HOME is an error for a command that only reads, not 'No sessions.' (issue 29)")
    func mistypedDataDirectory() throws {
        let typo = retime.dataDirectory + "-typo"
        let log = try retime.run(["--data-dir", typo, "log", "--json"], withDataDir: false)
        #expect(log.status == 1 && log.errorCode == "data.notFound" && log.err.contains("no retime data at \(typo)"), "\(log.err)")
        var viaHome = retime
        viaHome.environment["RETIME_HOME"] = typo
        let status = try viaHome.run(["status"], withDataDir: false)
        #expect(status.status == 1 && status.err.contains("$RETIME_HOME"), "\(status.err)")
        #expect(!FileManager.default.fileExists(atPath: typo), "a reader creates nothing")
        #expect(try retime.run(["--data-dir", typo, "group", "create", "work"], withDataDir: false).status == 0, "a command that saves creates it")
        #expect(try retime.run(["--data-dir", typo, "log"], withDataDir: false).status == 0)
    }

    @Test("a word that begins a command is suggested; 'version' is a command too")
    func words() throws {
        let stat = try retime.run("stat")
        #expect(stat.status == 2 && stat.err.contains("did you mean 'status'?"), "\(stat.err)")
        let version = try retime.run("version"), flag = try retime.run("--version")
        #expect(version.status == 0 && version.out == flag.out && version.out.hasPrefix("retime "))
        #expect(try retime.run("version", "--json").json["version"] as? String != nil)
    }

    @Test("schedule show, and schedule next in words for people and the spec's names in JSON")
    func schedules() throws {
        #expect(try retime.run("group", "create", "work").status == 0)
        #expect(try retime.run("schedule", "add", "mornings", "--group", "work", "--from", "09:00", "--to", "12:00", "--warn", "5m").status == 0)
        let show = try retime.run("schedule", "show", "mornings")
        #expect(show.status == 0 && show.out.contains("mornings: work daily 09:00:00-12:00:00"), "\(show.out)")
        #expect(try retime.run("schedule", "show", "evenings").status == 1)
        let next = try retime.run("schedule", "next", "--count", "4")
        #expect(next.out.contains("mornings  starts soon (warning)") && next.out.contains("mornings  ends") && !next.out.contains("interval"))
        let json = try retime.run("schedule", "next", "--count", "4", "--json")
        let events = (json.json["events"] as? [[String: Any]])?.compactMap { $0["event"] as? String } ?? []
        #expect(Set(events) == ["intervalWillStartWarning", "intervalDidStart", "intervalWillEndWarning", "intervalDidEnd"])
    }

    @Test("every command's help fits an 80-column terminal")
    func eightyColumns() throws {
        var paths: [[String]] = [[]]
        for (path, _) in ManPage.leaves(of: CommandTree.root, path: []) {
            paths.append(path)
            if path.count > 1 { paths.append(Array(path.dropLast())) }
        }
        for path in Set(paths) {
            let help = HelpRenderer.help(for: try #require(ArgumentParser(root: CommandTree.root).command(at: path)), path: path)
            for line in help.split(separator: "\n") where line.count > 80 {
                Issue.record("retime \(path.joined(separator: " ")) --help: \(line.count) columns: \(line)")
            }
        }
    }

    @Test("usage lines show required options without brackets")
    func usage() throws {
        #expect(try retime.run("track", "--help").out.contains("Usage: retime track --from WHEN --to WHEN [--tag TAG...]"))
        #expect(try retime.run("schedule", "add", "--help").out.contains("Usage: retime schedule add --group GROUP --from TIME --to TIME [--days"))
    }

    @Test("log names where a session came from when it was not started by hand")
    func origin() throws {
        let frames = retime.dataDirectory + "-frames"
        try "[[1763626800, 1763630400, \"deep\", \"00000000000000000000000000000001\", [], 0]]\n".write(toFile: frames, atomically: true, encoding: .utf8)
        #expect(try retime.run("import", "--from", "watson", frames).status == 0)
        #expect(try retime.run("log", "--since", "2025-01-01").out.contains("(import:watson)"))
    }
}

/// The same, where they need a terminal (`Helpers/pty_driver.py`).
@Suite("command conveniences on a terminal", .enabled(if: FileManager.default.fileExists(atPath: "/usr/bin/python3")))
struct TerminalConvenienceTests {
    let retime = RetimeProcess()

    func onTerminal(_ steps: [(String, String)], _ arguments: String...) throws -> RetimeProcess.Outcome {
        var driver = retime
        driver.launcher = ["/usr/bin/python3", PasscodePromptTests.driver] + steps.map { "\($0)=\($1)" } + ["--"]
        return try driver.run(arguments)
    }

    @Test("start with a group that does not exist offers to create it on a terminal; a script gets the error")
    func offerGroup() throws {
        let script = try retime.run("start", "reading", "--for", "10m")
        #expect(script.status == 1 && script.err.contains("no group named 'reading'") && script.err.contains("group create"))
        let declined = try onTerminal([("and start? [y/N] ", "n\\r")], "start", "reading", "--for", "10m")
        #expect(declined.status == 1, "\(declined.out)")
        let accepted = try onTerminal([("and start? [y/N] ", "y\\r")], "start", "reading", "--for", "10m")
        #expect(accepted.status == 0 && accepted.prose.contains("Started a 10m session on reading"), "\(accepted.out)")
        #expect(try retime.run("group", "show", "reading").status == 0)
    }

    @Test("daemon run on a terminal says that it runs, for which data and how to stop it; Ctrl-C stops it (issue 29)")
    func daemonRunSaysSo() throws {
        let run = try onTerminal([("Ctrl-C stops it.", "\\x03")], "daemon", "run")
        #expect(run.out.contains("retime daemon: running for \(retime.dataDirectory) (pid "), "\(run.out)")
        #expect(run.out.contains("--log-level info shows each event"), "\(run.out)")
        let status = try retime.run("daemon", "status")
        #expect(status.status == 1, "Ctrl-C stopped it: \(status.out)")
    }

    @Test("a passcode too short is refused before it is asked for again")
    func shortPasscode() throws {
        let short = try onTerminal([("New passcode: ", "ab\\r")], "auth", "set-passcode")
        #expect(short.status == 2 && !short.out.contains("Repeat it"), "\(short.out)")
    }
}

/// `retime man`: the manual page, from the command tree.
@Suite("the manual page")
struct ManPageTests {
    @Test("every command of the tree has its section; roff's special characters are escaped; groff reads it without a warning")
    func page() throws {
        let page = try RetimeProcess().run("man")
        #expect(page.status == 0 && page.out.hasPrefix(".TH RETIME 1 "))
        for path in ["group create", "start", "track", "edit", "shield test", "system run", "schedule show", "man"] {
            #expect(page.out.contains("\n.SS retime \(path)"), "\(path)")
        }
        #expect(!page.out.split(separator: "\n").contains { $0.hasPrefix(".SS") && $0.contains(" --") }, "option dashes are escaped")
        let groff = "/usr/bin/groff"
        guard FileManager.default.isExecutableFile(atPath: groff) else { return }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: groff)
        process.arguments = ["-man", "-Tutf8", "-ww", "-z"]
        let input = Pipe(), errors = Pipe()
        process.standardInput = input
        process.standardError = errors
        try process.run()
        input.fileHandleForWriting.write(Data(page.out.utf8))
        try input.fileHandleForWriting.close()
        process.waitUntilExit()
        let warnings = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        #expect(process.terminationStatus == 0 && warnings.isEmpty, "\(warnings)")
    }
}
