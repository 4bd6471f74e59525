@testable import RetimeCLI
import Adapters
import Domain
import Foundation
import Glibc
import Synchronization
import PortContracts
import Testing

/// The roots build nothing before a command asks (so `validate()` is not
/// run per command): these tests resolve every registration of each root,
/// as `doctor` does, so a missing or mistyped one fails here, not in use.
@Suite("Composition roots")
struct CompositionRootTests {
    let directory = FileManager.default.temporaryDirectory.appendingPathComponent("retime-roots-\(UUID().uuidString)").path

    var runtime: RuntimeContext {
        RuntimeContext(dataDirectory: directory, logLevel: .critical, environment: ["HOME": directory])
    }

    @Test("every registration of the CLI's root resolves")
    func cliRoot() async throws {
        let container = CLIRoot.container(runtime)
        try container.validate()
        await container.teardown()
    }

    @Test("every registration of the daemon's root resolves")
    func daemonRoot() async throws {
        let container = Container(DaemonRoot.registry(runtime))
        try container.validate()
        await container.teardown()
    }

    /// The system service's root, with the layers that need no privilege
    /// (the hosts file its own, no firewall, no apps): every registration
    /// resolves, and what its entry resolves builds every one of them, so
    /// it holds nothing it does not use.
    @Test("every registration of the system service's root resolves, and its entry uses them all")
    func systemRoot() async throws {
        var options = SystemOptions()
        options.stateDirectory = directory + "/state"
        options.hostsFile = directory + "/hosts"
        options.names = .hosts
        options.firewall = .off
        options.apps = false
        try FileManager.default.createDirectory(atPath: options.stateDirectory, withIntermediateDirectories: true)
        FileManager.default.createFile(atPath: options.hostsFile, contents: Data())
        let validated = SystemRoot.container(options, context: runtime)
        try validated.validate()
        await validated.teardown()

        let container = SystemRoot.container(options, context: runtime)
        _ = try SystemRoot.work(container)
        #expect(Set(container.built.services) == Set(container.registrations.keys))
        await container.teardown()
    }

    /// Descriptors of this process open on `path`.
    static func openDescriptors(on path: String) -> Int {
        let fds = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd")) ?? []
        return fds.filter { (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/fd/" + $0)) == path }.count
    }

    @Test("at the end of a command the teardowns close the files its services opened")
    func teardownClosesFiles() async throws {
        let container = CLIRoot.container(runtime)
        try container.resolve((any Tracker).self).track(TrackedEvent(name: "test", at: Date()))
        let events = try runtime.device().events
        #expect(Self.openDescriptors(on: events) == 1)
        await container.teardown()
        #expect(Self.openDescriptors(on: events) == 0)
        #expect(FileManager.default.fileExists(atPath: events))
    }

    @Test("every command's declared services resolve from the CLI's root")
    func commandServices() throws {
        let container = CLIRoot.container(runtime)
        for (path, command) in CommandTree.leaves {
            do { try Self.services(of: command, from: container) } catch {
                Issue.record("\(path.joined(separator: " ")): \(error)")
            }
        }
    }

    /// What a command declares once (`@Resolved`) is resolved when its
    /// services are built: one that does not resolve makes the build
    /// throw, naming the first, so a command never runs without it.
    @Test("services with a dependency the container lacks are not built: the build throws the first that did not resolve")
    func unresolvedDependency() throws {
        struct Needs: CommandServices {
            @Resolved var status: AuthStatusUseCase
            @Resolved var groups: any GroupRepository
        }
        do {
            _ = try ServiceSource(container: Container(Registry())).build(Needs.self)
            Issue.record("built services whose dependencies are not registered")
        } catch {
            #expect("\(error)".contains("AuthStatusUseCase"), "\(error)")
        }
        let services = try ServiceSource(container: CLIRoot.container(runtime)).build(Needs.self)
        #expect(services.groups is StoreGroupRepository)
    }

    private static func services<Command: RetimeCommand>(of command: Command.Type, from container: Container) throws {
        _ = try ServiceSource(container: container).build(Command.Services.self)
    }

    @Test("reconcile runs once per command: by the root exactly when none of the command's services reconciles itself")
    func reconciliationDeclared() throws {
        let container = CLIRoot.container(runtime)
        for (path, command) in CommandTree.leaves {
            let name = path.joined(separator: " ")
            let declared = Self.reconciliation(of: command)
            guard declared != .never else { continue }
            let services = try Self.builtServices(of: command, from: container)
            let reconcilesItself = Mirror(reflecting: services).children.contains { ($0.value as? any ResolvedDependency)?.dependency is any ReconcilesSession }
            #expect(declared == (reconcilesItself ? .byUseCase : .byRoot), "\(name) declares \(declared)")
        }
        // What looks at the data as it is, and why: doctor reports it before
        // repairing, daemon status and shield test change nothing.
        var never: [String] = []
        for (path, command) in CommandTree.leaves where Self.reconciliation(of: command) == .never {
            never.append(path.joined(separator: " "))
        }
        #expect(Set(never).isSuperset(of: ["daemon run", "daemon status", "help"]), "\(never)")
    }

    private static func reconciliation<Command: RetimeCommand>(of command: Command.Type) -> Reconciliation {
        Command.reconciliation
    }

    private static func builtServices<Command: RetimeCommand>(of command: Command.Type, from container: Container) throws -> any CommandServices {
        try ServiceSource(container: container).build(Command.Services.self)
    }

    @Test("doctor's wiring check passes on a fresh data directory")
    func doctorServicesCheck() async throws {
        let checks = await CompositionHealth(runtime: runtime).inspect(repairing: false)
        #expect(checks.map(\.status) == [.ok], "\(checks)")
    }

    /// The directory the roots use, over a data directory whose `shield`
    /// setting is the default (`none` here: no service, no hosts file).
    @Test(arguments: ShieldDirectoryContract.checks)
    func configuredShields(_ check: ContractCheck<ShieldDirectoryContract.Factory>) async throws {
        let runtime = runtime
        try await check.run { try CLIRoot.container(runtime).resolve((any ShieldDirectory).self) }
    }

    /// What the roots bind for the passcode's three ports, over a data
    /// directory with the default shield (`none` here).
    @Test(arguments: StrictOverrideContract.checks)
    func configuredOverride(_ check: ContractCheck<StrictOverrideContract.Factory>) async throws {
        let runtime = runtime
        try await check.run {
            let container = CLIRoot.container(runtime)
            let set = try container.resolve(SetPasscodeUseCase.self)
            return .init(override: try container.resolve((any StrictOverride).self)) { try await set.execute($0) }
        }
    }

    @Test(arguments: EnforcerPasscodesContract.checks)
    func configuredEnforcer(_ check: ContractCheck<EnforcerPasscodesContract.Factory>) async throws {
        let runtime = runtime
        try await check.run { .init(enforcer: try CLIRoot.container(runtime).resolve((any EnforcerPasscodes).self), keepsPasscode: false) }
    }

    @Test(arguments: ShieldAuthorizationProbeContract.checks)
    func configuredProbe(_ check: ContractCheck<ShieldAuthorizationProbeContract.Factory>) async throws {
        let runtime = runtime
        try await check.run {
            let container = CLIRoot.container(runtime)
            try await container.resolve(CreateGroupUseCase.self).execute(name: "work", targets: ["example.com"])
            return .init(probe: try container.resolve((any ShieldAuthorizationProbe).self), expected: .approved) {
                ShieldAuthorizationProbeContract.files(under: runtime.layout.store)
            }
        }
    }

    /// It repairs nothing (a missing registration is a programming error),
    /// so it keeps the contract's rules for every inspector, not the repair ones.
    @Test(arguments: HealthInspectorContract.checks)
    func compositionHealthContract(_ check: ContractCheck<HealthInspectorContract.Factory>) async throws {
        let runtime = runtime
        try await check.run { _ in CompositionHealth(runtime: runtime) }
    }

    /// The configured shield's access, on a fresh data directory (`auto`
    /// with no service: recorded, as configured). It repairs nothing.
    /// The session slot of the CLI's store, counting its reads.
    final class CountedSlot: SessionRepository {
        let inner: any SessionRepository
        private let count = Mutex(0)
        var reads: Int { count.withLock { $0 } }

        init(_ inner: any SessionRepository) { self.inner = inner }

        func current() async throws -> Session? {
            count.withLock { $0 += 1 }
            return try await inner.current()
        }

        func replace(_ expected: Session?, with new: Session?) async throws -> Bool { try await inner.replace(expected, with: new) }
    }

    /// The CLI's own doctor, with the system service installed (a socket
    /// bound where clients look for it, so the shield's access checks the
    /// running session) and a session in the slot. Before, the shield's
    /// access inspector read the slot itself: two reads.
    @Test("the CLI's doctor reads the session slot once, the shield's access finding included")
    func doctorReadsTheSessionOnce() async throws {
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let socketPath = directory + "/shield.sock"
        let listener = Glibc.socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(listener) }
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        withUnsafeMutableBytes(of: &address.sun_path) { raw in for (index, byte) in socketPath.utf8.enumerated() { raw[index] = byte } }
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(listener, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
        }
        try #require(bound == 0)
        let runtime = RuntimeContext(dataDirectory: directory, logLevel: .critical,
                                     environment: ["HOME": directory, "RETIME_SHIELD_SOCKET": socketPath])
        var registry = CLIRoot.registry(runtime)
        let slot = CountedSlot(try Container(registry).resolve((any SessionRepository).self))
        registry.register((any SessionRepository).self, value: slot)
        let container = Container(registry)
        #expect(try await slot.replace(nil, with: Fixtures.session(startingAt: Date().timeIntervalSince1970 - 60, length: 3_600)))
        let before = slot.reads
        let checks = await (try container.resolve(DoctorUseCase.self)).execute(repairing: false)
        #expect(checks.contains { $0.name == "shield" }, "\(checks)")
        #expect(slot.reads - before == 1, "\(slot.reads - before) reads: \(checks)")
        await container.teardown()
    }

    @Test(arguments: SessionHealthInspectorContract.checks)
    func shieldAccessHealthContract(_ check: ContractCheck<SessionHealthInspectorContract.Factory>) async throws {
        let runtime = runtime
        try await check.run {
            ShieldAccessHealth(shields: try CLIRoot.container(runtime).resolve(ConfiguredShields.self))
        }
    }

    /// The settings, notification, time-zone and sync findings, each in a healthy
    /// world (their damaged ones are tested through the binary: a setting of
    /// the wrong shape, an unknown TZ). They repair nothing.
    @Test(arguments: HealthInspectorContract.checks)
    func settingsHealthContract(_ check: ContractCheck<HealthInspectorContract.Factory>) async throws {
        let runtime = runtime
        try await check.run { _ in SettingsHealth(read: { try StoreSettings.snapshot(of: runtime.store, dataDirectory: runtime.dataDirectory) }) }
        try await check.run { _ in NotificationHealth(settings: Settings(stored: ["notify": "off"], dataDirectory: "/d"), environment: [:]) }
        try await check.run { _ in NotificationHealth(settings: Settings(stored: [:], dataDirectory: "/d"), environment: [:]) }
        try await check.run { _ in TimeZoneHealth(environment: ["TZ": "Europe/Berlin"]) }
        try await check.run { _ in
            SyncHealth(status: {
                try SyncStatusUseCase(folder: InMemorySyncFolder(deviceID: "0b1c2d3e-0000-4000-8000-000000000001"),
                                      devices: DataFolderDevices(thisDevice: { "0b1c2d3e-0000-4000-8000-000000000001" }, directory: "/nonexistent",
                                                                 clock: ManualClock()),
                                      clock: ManualClock()).execute()
            })
        }
    }
}
