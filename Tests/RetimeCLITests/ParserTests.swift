@testable import RetimeCLI
import Testing

@Suite("Argument parsing")
struct ParserTests {
    let parser = ArgumentParser(root: CommandTree.root)

    @Test("values as --opt v and --opt=v, repeated options, flags and positionals")
    func forms() throws {
        let parsed = try parser.parse(["start", "work", "--for=25m", "--tag", "a", "--tag=b", "--strict", "--note", "-x"])
        #expect(parsed.path == ["start"])
        #expect(parsed.argument("GROUP") == "work")
        #expect(parsed.value("for") == "25m")
        #expect(parsed.allValues("tag") == ["a", "b"])
        #expect(parsed.flag("strict"))
        #expect(parsed.value("note") == "-x")
    }

    @Test("global options stand before or after the command")
    func globals() throws {
        let before = try parser.parse(["--json", "--data-dir", "/tmp/x", "group", "list"])
        let after = try parser.parse(["group", "list", "--data-dir=/tmp/x", "--json", "--no-color", "--log-level", "debug"])
        #expect(before.globals.json && after.globals.json)
        #expect(before.globals.dataDirectory == "/tmp/x" && after.globals.dataDirectory == "/tmp/x")
        #expect(after.globals.noColor && after.globals.logLevel == "debug")
        #expect(before.path == ["group", "list"] && after.path == ["group", "list"])
    }

    @Test("-- ends options: what follows is positional, even if it looks like one")
    func doubleDash() throws {
        let parsed = try parser.parse(["group", "create", "--", "--weird-name"])
        #expect(parsed.argument("NAME") == "--weird-name")
    }

    @Test("a misspelt command or option gets a suggestion", arguments: [
        (["strat"], "did you mean 'start'?"), (["gruop", "list"], "did you mean 'group'?"),
        (["group", "craete", "x"], "did you mean 'create'?"), (["start", "--fro", "2m"], "did you mean '--for'?"),
        (["log", "--limt", "3"], "did you mean '--limit'?"), (["status", "--jsn"], "did you mean '--json'?"),
    ])
    func suggestions(arguments: [String], hint: String) throws {
        let error = try #require(throws: UsageError.self) { try parser.parse(arguments) }
        #expect(error.hint == hint)
        #expect(error.exitCode == 2)
    }

    @Test("missing values, arguments and subcommands, and extra arguments are usage errors", arguments: [
        (["start", "--for"], UsageError.Reason.missingValue), (["start", "--for", "--json"], .missingValue),
        (["group", "create"], .missingArgument),
        (["group"], .missingArgument), (["group", "block", "work"], .missingArgument),
        (["stop", "now"], .unexpectedArgument), (["status", "--watch=yes"], .invalidValue), (["-x"], .unknownOption),
        (["--data-dir", "", "group", "create", "x"], .invalidValue), (["status", "--data-dir="], .invalidValue),
    ])
    func usageErrors(arguments: [String], reason: UsageError.Reason) throws {
        let error = try #require(throws: UsageError.self) { try parser.parse(arguments) }
        #expect(error.reason == reason)
        #expect(error.code == "usage.\(reason.rawValue)")
    }

    @Test("a date and a time in two words are one WHEN or DATE: --from 2026-11-20 09:00 needs no quotes (issue 29)")
    func unquotedDateTime() throws {
        let track = try parser.parse(["track", "work", "--from", "2026-11-20", "09:00", "--to", "yesterday", "10:30:15"])
        #expect(track.value("from") == "2026-11-20 09:00" && track.value("to") == "yesterday 10:30:15" && track.argument("GROUP") == "work")
        let log = try parser.parse(["log", "--since", "2026-11-20", "--limit", "3"])
        #expect(log.value("since") == "2026-11-20", "a date alone stays a date")
        let note = try parser.parse(["start", "work", "--note", "2026-11-20", "--for", "25m"])
        #expect(note.value("note") == "2026-11-20", "only WHEN and DATE values join")
    }

    @Test("--help and -h ask for help wherever they stand, even with arguments missing")
    func help() throws {
        #expect(try parser.parse(["group", "create", "--help"]).wantsHelp)
        #expect(try parser.parse(["-h", "start"]).wantsHelp)
        let text = HelpRenderer.help(for: parser.command(at: ["start"])!, path: ["start"])
        #expect(text.contains("Usage: retime start [--for DURATION] [--until WHEN] [--cycle WORK/BREAK[/LONG]]\n       [--rounds N] [--flow] [--strict] [--create] [--at WHEN] [--tag TAG...]\n       [--note TEXT] [GROUP]"),
                "wrapped at 80 columns under its first word: \(text)")
        #expect(text.contains("--data-dir PATH"))
    }

    @Test("every command in the tree has a runner, and every runner a place in the tree")
    func treeAndRunnersAgree() {
        let leaves = CompletionScript.flatten(CommandTree.root).filter { $0.1.subcommands.isEmpty }.map(\.0)
        #expect(Set(leaves) == Set(CommandTree.leaves.keys))
    }
}
