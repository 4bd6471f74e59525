import Foundation
@testable import RetimeCLI
import Synchronization
import Testing

/// Collects what the runner prints, for in-process runs.
final class Captured: Sendable {
    let out = Mutex(""), err = Mutex("")
    var console: Console {
        Console(writeOut: { text in self.out.withLock { $0 += text } }, writeErr: { text in self.err.withLock { $0 += text } })
    }
}

@Suite("No input crashes retime", .serialized)
struct RobustnessTests {
    static let words = ["group", "create", "list", "show", "rename", "block", "unblock", "delete", "start", "stop", "pause",
                        "resume", "status", "log", "auth", "request", "config", "get", "set", "unset", "doctor", "completion", "help", "bash",
                        "work", "focus", "shield", "notify", "defaultGroup", "log.level", "example.com", "app:x", "25m",
                        "1h30m", "PT5M", "17:30", "today", "-3d", "2026-11-22", "on", "off", "none", "hosts", "-", "--", "0",
                        "-1", "99999999999999999999"]
    static let options = ["--for", "--until", "--strict", "--tag", "--note", "--block", "--since", "--until", "--group",
                          "--limit", "--csv", "--watch", "--repair", "--json", "--no-color", "--help", "-h", "--version",
                          "--log-level", "--passcode-stdin", "--stdin", "--bogus", "--for=", "--limit=abc", "-x", "--data-dir"]
    static let odd = ["", " ", "\u{0}", "é", "👩‍💻", "\u{202E}evil", String(repeating: "a", count: 5_000), "a/b", "\"", "'", "\\",
                      "../../etc/passwd", "%s%n", "\n", "\t", "app:", "xn--", "-0", "1e308", "NaN", "24:00", "9999-99-99"]

    static func randomArguments(_ generator: inout some RandomNumberGenerator) -> [String] {
        (0..<Int.random(in: 0...6, using: &generator)).map { _ in
            switch Int.random(in: 0..<10, using: &generator) {
            case 0..<4: words.randomElement(using: &generator)!
            case 4..<7: options.randomElement(using: &generator)!
            case 7..<9: odd.randomElement(using: &generator)!
            default: String((0..<Int.random(in: 1...12, using: &generator)).map { _ in
                Character(Unicode.Scalar(UInt8.random(in: 32...126, using: &generator)))
            })
            }
        }
    }

    @Test("2,500 generated argument vectors run in-process end with 0-4 and, when not 0, a message")
    func inProcess() async throws {
        let data = FileManager.default.temporaryDirectory.appendingPathComponent("retime-fuzz-\(UUID().uuidString)").path
        var generator = SystemRandomNumberGenerator()
        for _ in 0..<2_500 {
            // Keep the watch loop out: it waits for a session to end.
            let arguments = Self.randomArguments(&generator).filter { $0 != "--watch" && $0 != "--data-dir" }
            let captured = Captured()
            let environment = ["HOME": data + "-home", "RETIME_SHIELD_SOCKET": data + "-no-service.sock"]
            let status = await RetimeCLI.run(["--data-dir", data] + arguments, environment: environment, console: captured.console)
            #expect((0...4).contains(status), "\(arguments)")
            if status != 0 {
                #expect(captured.err.withLock { $0 }.hasPrefix("retime: error: "), "\(arguments)")
            }
        }
    }

    @Test("300 generated argument vectors through the real binary: no signal, exit 0-4, a message on failure")
    func throughTheBinary() throws {
        let retime = RetimeProcess()
        var generator = SystemRandomNumberGenerator()
        for _ in 0..<300 {
            let arguments = Self.randomArguments(&generator).filter { $0 != "--watch" && $0 != "--data-dir" }
            let outcome = try retime.run(arguments)
            #expect((0...4).contains(outcome.status), "\(arguments)")
            if outcome.status != 0 { #expect(outcome.err.hasPrefix("retime: error: "), "\(arguments)") }
        }
    }
}
