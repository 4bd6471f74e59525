@testable import RetimeCLI
import Domain
import Foundation
import Testing

/// A group's one-line summary (`group list`, `group block`) stays one
/// readable line however many targets the group holds.
@Suite("A group's one-line summary")
struct GroupSummaryTests {
    static func group(_ name: String, targets count: Int) throws -> Group {
        Group(name: try GroupName(name), targets: try (0..<count).map { try Target(parsing: "s\($0).example") }, createdAt: Date())
    }

    @Test("up to the limit every target is named; past it the rest are counted and group show is named")
    func capped() throws {
        let limit = GroupCommands.targetsShown
        let whole = GroupCommands.human(try Self.group("work", targets: limit), style: Style(enabled: false))
        #expect(whole == "work: " + (0..<limit).map { "s\($0).example" }.joined(separator: ", "))
        let big = GroupCommands.human(try Self.group("Deep Work", targets: 10_000), style: Style(enabled: false))
        #expect(big.hasPrefix("Deep Work: s0.example, s1.example, "))
        #expect(big.hasSuffix("s\(limit - 1).example and \(10_000 - limit) more (retime group show \"Deep Work\")"))
        #expect(!big.contains("s\(limit).example"))
    }

    @Test("a name is one shell word: bare when plain, double-quoted with the shell's specials escaped")
    func shellWords() {
        #expect(GroupCommands.shellWord("focus") == "focus")
        #expect(GroupCommands.shellWord("Deep Work") == "\"Deep Work\"")
        #expect(GroupCommands.shellWord("a\"b$c`d\\e") == "\"a\\\"b\\$c\\`d\\\\e\"")
        #expect(GroupCommands.shellWord("it's") == "\"it's\"")
    }
}
