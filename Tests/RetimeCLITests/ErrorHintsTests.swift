@testable import RetimeCLI
import Testing

@Suite("Error hints")
struct ErrorHintsTests {
    static let hinted = ["session.alreadyActive", "session.notActive", "session.alreadyPaused", "session.notPaused",
                         "session.strict", "group.notFound", "schedule.notFound"]

    @Test("every command a hint names is one the parser knows, so hints cannot drift from the tree", arguments: hinted)
    func commandsExist(code: String) throws {
        let hint = try #require(ErrorHints.hint(forCode: code))
        let quoted = hint.split(separator: "'", omittingEmptySubsequences: false).enumerated().filter { $0.offset % 2 == 1 }.map { String($0.element) }
        let parser = ArgumentParser(root: CommandTree.root)
        for command in quoted {
            let words = command.split(separator: " ").map(String.init)
            #expect(words.first == "retime", "\(command)")
            let path = Array(words.dropFirst().prefix { !$0.hasPrefix("[") && !$0.hasPrefix("-") && $0 != $0.uppercased() })
            #expect(parser.command(at: path) != nil, "'\(command)' in the hint for \(code)")
        }
    }

    @Test("a failure with a hint prints it on the line after the error")
    func printed() throws {
        let stop = try RetimeProcess().run("stop")
        #expect(stop.status == 1)
        #expect(stop.err == "retime: error: no session is active\nhint: start one with 'retime start [GROUP] --for DURATION'\n")
    }
}
