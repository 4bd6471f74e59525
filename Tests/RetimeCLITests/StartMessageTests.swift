@testable import RetimeCLI
import Domain
import Testing

/// What `start` says it blocks must be what the shield in force does.
@Suite("start's account of what is blocked")
struct StartMessageTests {
    let targets = try! ["slack.com", "news.example.org", "app:Mail"].map { try Target(parsing: $0) }
    /// What each shield says it blocks (`Shield.reach`).
    static let hosts = ShieldReach(sites: true, apps: .unsupported)
    static let system = ShieldReach(sites: true, apps: .blocked, subdomains: true)
    static let systemWithoutApps = ShieldReach(sites: true, apps: .layerOff, subdomains: true)
    /// The service where its name layer cannot run (the hosts file instead).
    static let systemWithHostsFile = ShieldReach(sites: true, apps: .blocked)

    @Test("the 'none' shield blocks nothing, and start says so and how to change it")
    func noneShield() {
        #expect(SessionCommands.Start.blocking(targets, group: "work", reach: .recordsOnly)
            == " The 'none' shield only records its 3 targets: nothing is blocked (to block, install the system service: 'sudo retime system install').")
    }

    @Test("the hosts shield blocks sites, not apps, and start counts them apart")
    func hostsShield() {
        #expect(SessionCommands.Start.blocking(targets, group: "work", reach: Self.hosts)
            == " Blocking 2 sites (each with its www., not its other subdomains); the hosts shield cannot block 1 app (the system service's app layer can: 'sudo retime system install').")
        #expect(SessionCommands.Start.blocking(Array(targets.prefix(1)), group: "work", reach: Self.hosts)
            == " Blocking 1 site, each with its www. (not its other subdomains).", "a hosts file has no wildcards (issue 29)")
    }

    @Test("the system shield counts apps as blocked only while the service's app layer is on")
    func systemShield() {
        #expect(SessionCommands.Start.blocking(targets, group: "work", reach: Self.system) == " Blocking 3 targets (its sites with their subdomains).")
        #expect(SessionCommands.Start.blocking(Array(targets.prefix(2)), group: "work", reach: Self.system) == " Blocking 2 sites, each with its subdomains.")
        #expect(SessionCommands.Start.blocking(Array(targets.prefix(1)), group: "work", reach: Self.systemWithHostsFile)
            == " Blocking 1 site, each with its www. (not its other subdomains).")
        #expect(SessionCommands.Start.blocking(targets, group: "work", reach: Self.systemWithoutApps)
            == " Blocking 2 sites; the system service's app layer is off, so 1 app stays open.")
    }

    @Test("an empty group blocks nothing, whatever the shield, and start says how to fill it")
    func emptyGroup() {
        for reach in [ShieldReach.recordsOnly, Self.hosts, Self.system] {
            #expect(SessionCommands.Start.blocking([], group: "Deep Work", reach: reach)
                == " Nothing is blocked: Deep Work has no targets yet (add them with 'retime group block \"Deep Work\" SITE').")
        }
    }
}
