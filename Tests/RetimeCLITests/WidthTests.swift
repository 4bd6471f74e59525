@testable import RetimeCLI
import Domain
import Foundation
import Testing

/// Output fits 80 columns (or the terminal's width), and columns line up by
/// what a terminal shows, not by characters: CJK and emoji take two
/// (issue 29).
@Suite("Output within the terminal's width")
struct WidthTests {
    let retime = RetimeProcess()

    @Test("start and status never print a line wider than 80 columns when not on a terminal")
    func eightyColumns() throws {
        let name = "a rather long group name for the afternoon"
        #expect(try retime.run("group", "create", name, "--block", "example.com", "--block", "example.org").status == 0)
        let start = try retime.run("start", name, "--for", "50m", "--tag", "deep")
        let status = try retime.run("status")
        for line in (start.out + status.out).split(separator: "\n") {
            #expect(DisplayWidth.visible(line) <= 80, "\(line)")
        }
        #expect(start.prose.contains("nothing is blocked (to block, install the system service: 'sudo retime system install')"))
        #expect(try retime.run("cancel").status == 0)
    }

    @Test("log lines up its columns by display width: CJK and emoji group names take two columns a character")
    func wideNames() throws {
        for name in ["深度工作", "work 🚀", "plain"] {
            #expect(try retime.run("group", "create", name).status == 0)
            #expect(try retime.run("track", name, "--from", "2026-11-20T10:00:00Z", "--to", "2026-11-20T11:00:00Z").status == 0)
        }
        let lines = try retime.run("log", "--since", "2026-11-01").out.split(separator: "\n").filter { $0.hasPrefix("  ") }
        #expect(lines.count == 3)
        let columns = lines.map { line in DisplayWidth.of(line[..<line.range(of: "completed")!.lowerBound]) }
        #expect(Set(columns).count == 1, "the outcome starts in one column: \(lines)")
    }

    @Test("display width: CJK and emoji two columns, combining marks none, colour none")
    func displayWidth() {
        #expect(DisplayWidth.of("a\tb\u{7F}") == 2 && DisplayWidth.of("a\u{301}") == 1 && DisplayWidth.of("ab"[...]) == 2)
        #expect(DisplayWidth.of("abc") == 3 && DisplayWidth.of("深度") == 4 && DisplayWidth.of("🚀") == 2 && DisplayWidth.of("é") == 1)
        #expect(DisplayWidth.visible("\u{1B}[1mwork\u{1B}[0m") == 4)
        #expect(DisplayWidth.truncate("深度工作 focus", to: 6) == "深度…" && DisplayWidth.truncate("short", to: 10) == "short")
    }

    @Test("ASCII takes its column by the same rule as the rest of Unicode: controls none, every other character one; a keycap two")
    func asciiWidth() {
        for value in UInt8(0)...0x7F {
            let scalar = Unicode.Scalar(value)
            let control = scalar.properties.generalCategory == .control || scalar.properties.generalCategory == .format
            #expect(DisplayWidth.of(Character(scalar)) == (control ? 0 : 1), "U+\(String(value, radix: 16))")
        }
        #expect(DisplayWidth.of(Character("\r\n")) == 0)
        #expect(DisplayWidth.of(Character("#\u{FE0F}\u{20E3}")) == 2)
    }

    @Test("prose wraps between words at the width, colour taking no column")
    func wrapping() {
        let words = (1...30).map { "word\($0)" }.joined(separator: " ")
        let lines = HelpRenderer.wrap(words, width: 20)
        #expect(lines.joined(separator: " ") == words)
        #expect(lines.allSatisfy { DisplayWidth.visible($0) <= 20 })
        #expect(lines.dropLast().allSatisfy { line in DisplayWidth.visible(line) + 1 + DisplayWidth.visible(lines[lines.firstIndex(of: line)! + 1].split(separator: " ")[0]) > 20 })
        #expect(HelpRenderer.wrap("\u{1B}[1mbold\u{1B}[0m word", width: 9) == ["\u{1B}[1mbold\u{1B}[0m word"])
    }
}

/// `status --watch` on a real terminal narrower than its line: one line,
/// redrawn in place, never a stack of wrapped copies.
@Suite("status --watch on a narrow terminal", .enabled(if: FileManager.default.fileExists(atPath: "/usr/bin/python3")))
struct NarrowWatchTests {
    let retime = RetimeProcess()

    @Test("each redraw fits the terminal's width")
    func watchFits() throws {
        #expect(try retime.run("group", "create", "a group with quite a long name indeed").status == 0)
        #expect(try retime.run("start", "a group with quite a long name indeed", "--for", "2s").status == 0)
        var driver = retime
        driver.environment["PTY_COLUMNS"] = "40"
        driver.launcher = ["/usr/bin/python3", PasscodePromptTests.driver, "--"]
        let watch = try driver.run(["status", "--watch"])
        let redraws = watch.out.components(separatedBy: "\r\u{1B}[2K").dropFirst()
        #expect(!redraws.isEmpty, "\(watch.out)")
        for redraw in redraws {
            let line = redraw.split(separator: "\r\n").first.map(String.init) ?? redraw
            #expect(DisplayWidth.of(line) < 40, "\(line)")
        }
    }
}

/// A log longer than the terminal goes through `$PAGER`, as git's does
/// (issue 29); a short one, a script's and `--json` are printed as they are.
@Suite("log through the pager", .enabled(if: FileManager.default.fileExists(atPath: "/usr/bin/python3")))
struct PagerTests {
    let retime = RetimeProcess()

    func onTerminal(rows: Int, _ arguments: String...) throws -> RetimeProcess.Outcome {
        var driver = retime
        driver.environment["PTY_ROWS"] = "\(rows)"
        driver.environment["PAGER"] = "sed s/^/paged:/"
        driver.launcher = ["/usr/bin/python3", PasscodePromptTests.driver, "--"]
        return try driver.run(arguments)
    }

    @Test("longer than the terminal: through $PAGER; shorter, or --json, or not a terminal: printed")
    func pages() throws {
        #expect(try retime.run("group", "create", "work").status == 0)
        for hour in 1...12 {
            let from = Date().addingTimeInterval(-Double(hour) * 3_600)
            #expect(try retime.run("track", "work", "--from", Timestamp.format(from, fractionDigits: 0),
                                   "--to", Timestamp.format(from.addingTimeInterval(600), fractionDigits: 0)).status == 0)
        }
        let long = try onTerminal(rows: 8, "log")
        let lines = long.out.split(separator: "\n").map { $0.trimmingCharacters(in: .whitespacesAndNewlines) }.filter { !$0.isEmpty }
        #expect(!lines.isEmpty && lines.allSatisfy { $0.hasPrefix("paged:") }, "\(long.out)")
        let short = try onTerminal(rows: 60, "log")
        #expect(!short.out.contains("paged:") && short.out.contains("work"), "\(short.out)")
        #expect(!(try onTerminal(rows: 8, "log", "--json").out.contains("paged:")))
        #expect(!(try retime.run("log").out.contains("paged:")), "not a terminal")
    }
}
