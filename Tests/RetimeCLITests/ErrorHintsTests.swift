@testable import RetimeCLI
import Foundation
import Testing

@Suite("Error hints")
struct ErrorHintsTests {
    static let hinted = ["session.alreadyActive", "session.notActive", "session.alreadyPaused", "session.notPaused",
                         "session.strict", "group.notFound", "group.inUse", "schedule.notFound", "shield.failed", "shield.notPermitted",
                         "shield.notLifted", "store.corrupted", "store.typeMismatch"]

    @Test("every command a hint names is one the parser knows, so hints cannot drift from the tree", arguments: hinted)
    func commandsExist(code: String) throws {
        let hint = try #require(ErrorHints.hint(forCode: code))
        let quoted = hint.split(separator: "'", omittingEmptySubsequences: false).enumerated().filter { $0.offset % 2 == 1 }.map { String($0.element) }
        let parser = ArgumentParser(root: CommandTree.root)
        for command in quoted {
            // A command that needs root is named with its sudo.
            let words = command.split(separator: " ").map(String.init).drop { $0 == "sudo" }.map { $0 }
            #expect(words.first == "retime", "\(command)")
            // A command given whole (no NAME, no [GROUP]) must parse as it stands.
            let concrete = !words.contains { $0.hasPrefix("[") || ($0 == $0.uppercased() && $0.contains(where: \.isLetter)) }
            if concrete {
                #expect(throws: Never.self, "'\(command)' in the hint for \(code)") { try parser.parse(Array(words.dropFirst())) }
                continue
            }
            let path = Array(words.dropFirst().prefix { !$0.hasPrefix("[") && !$0.hasPrefix("-") && $0 != $0.uppercased() })
            #expect(parser.command(at: path) != nil, "'\(command)' in the hint for \(code)")
        }
    }

    @Test("a failure with a hint prints it on the line after the error")
    func printed() throws {
        let stop = try RetimeProcess().run("stop")
        #expect(stop.status == 1)
        #expect(stop.err == "retime: error: no session is active\nhint: start one with 'retime start [GROUP] --for DURATION'; 'retime log --limit 1' shows the last one\n")
    }
}

@Suite("Local moments in messages")
struct LocalMomentTests {
    // Noon UTC: a minute later is the same local day in every zone there is.
    let now = Date(timeIntervalSince1970: 1_781_524_800)   // 2026-06-15T12:00:00Z

    @Test("an instant later the same day is its clock time; another day's has its date")
    func moment() {
        let soon = now.addingTimeInterval(60)
        #expect(LocalTime.moment(soon, now: now) == LocalTime.clock(soon))
        let later = now.addingTimeInterval(3 * 86_400)
        #expect(LocalTime.moment(later, now: now) == String(LocalTime.dateTime(later).prefix(10)) + " " + LocalTime.clock(later))
    }
}
