import Domain
import Testing

/// A domain target blocks its subdomains too (cli.md, "TARGET"), and names
/// are compared as DNS compares them.
@Suite("Blocked names")
struct BlockedNamesTests {
    let names = BlockedNames(["blocked.test", "Other.Example."])

    @Test("a blocked domain covers itself and every name below it, in any case, with or without a trailing dot")
    func covers() {
        for name in ["blocked.test", "BLOCKED.test.", "www.blocked.test", "a.b.Sub.Blocked.Test", "blocked.test..", "other.example", "x.OTHER.example."] {
            #expect(names.covering(name) != nil, "\(name)")
        }
        #expect(names.covering("sub.blocked.test") == "blocked.test")
    }

    @Test("names that only end alike, parents, and labels holding a dot are not covered")
    func doesNotCover() {
        for name in ["notblocked.test", "test", "blocked.test.evil", "blocked-test", "", ".", "example"] {
            #expect(names.covering(name) == nil, "\(name)")
        }
        #expect(names.covering(labels: ["blocked.test"]) == nil, "one label with a dot in it is not two labels")
        #expect(names.covering(labels: ["a.b", "blocked", "test"]) == "blocked.test", "below the name, whatever the labels above hold")
        #expect(BlockedNames([]).covering("blocked.test") == nil)
    }

    @Test("built from targets, apps block no name")
    func fromTargets() throws {
        let targets = try ["Example.COM", "app:slack"].map { try Target(parsing: $0) }
        #expect(BlockedNames(targets: targets).domains == ["example.com"])
    }
}
