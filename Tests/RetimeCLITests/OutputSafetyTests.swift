@testable import RetimeCLI
import Foundation
import Testing

/// What retime prints stays safe to read and to open: exports run no
/// formulas, and errors do not echo huge arguments.
@Suite("Output that is safe to open and to read")
struct OutputSafetyTests {
    @Test("a CSV cell a spreadsheet would run as a formula is prefixed with an apostrophe; others are as they were",
          arguments: [("=HYPERLINK(\"http://x\")", "\"'=HYPERLINK(\"\"http://x\"\")\""), ("+1", "'+1"), ("-cmd", "'-cmd"), ("@SUM(A1)", "'@SUM(A1)"),
                      ("\tx", "'\tx"), ("plain", "plain"), ("a=b", "a=b"), ("2026-11-23T09:00:00+01:00", "2026-11-23T09:00:00+01:00"),
                      ("a,b", "\"a,b\""), ("", "")])
    func formulaCells(value: String, expected: String) {
        #expect(CSVTable.field(value) == expected)
    }

    @Test("a group named like a formula is exported as text through the binary")
    func formulaGroupExported() throws {
        let retime = RetimeProcess()
        try retime.run("group", "create", "=SUM(1;2)+CALL(\"x\")")
        try retime.run("start", "=SUM(1;2)+CALL(\"x\")")
        try retime.run("stop")
        let csv = try retime.run("log", "--csv").out
        #expect(csv.contains(",\"'=SUM(1;2)+CALL(\"\"x\"\")\","), "\(csv)")
    }

    @Test("an error about a 131 KB argument prints under 1,100 characters, saying how much was cut")
    func hugeArgument() throws {
        let retime = RetimeProcess()
        let outcome = try retime.run("group", "show", String(repeating: "x", count: 131_000))
        #expect(outcome.status != 0)
        let line = outcome.err.split(separator: "\n").first.map(String.init) ?? ""
        #expect(line.count < 1_100 && line.contains("more characters)"), "\(line.count) characters")
    }
}
