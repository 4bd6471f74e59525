@testable import RetimeCLI
import Adapters
import Domain
import Foundation
import Synchronization

/// One machine of a simulated fleet (`FleetSimulation`): its own home,
/// state directory and copy of the shared data folder, its own device id
/// and its own manual clock, and retime's real composition root (the CLI's
/// registration, the real file adapters) on them. Each `command` is one
/// retime process: a fresh container, torn down at the end, so nothing
/// carries over between commands but the files.
final class FleetDevice: Sendable {
    /// Its place in the fleet (0, 1, ...): how the simulation's log names it.
    let index: Int
    /// Its device id (what `devices/<id>/` and `history/<id>/` are named).
    let id: String
    /// The machine's folder: `home/`, `state/` and `data/` below it.
    let machine: String
    /// Its copy of the data folder that the sync fabric shares.
    var data: String { machine + "/data" }
    /// Its wall, boot-time and awake clocks.
    let clock: ManualClock
    /// Every raise and lower its shields were asked for, in order.
    let shieldLog = ShieldLog()
    /// When each file the fabric delivered here arrived, on this machine's
    /// clock: the arrival a real file's change time tells (`PeerClocks`).
    let arrivals = ArrivalBook()

    init(index: Int, id: String, machine: String, clock: ManualClock) throws {
        self.index = index
        self.id = id
        self.machine = machine
        self.clock = clock
        let state = machine + "/state/retime"
        try FileManager.default.createDirectory(atPath: state, withIntermediateDirectories: true)
        try FileManager.default.createDirectory(atPath: machine + "/home", withIntermediateDirectories: true)
        try FileManager.default.createDirectory(atPath: data, withIntermediateDirectories: true)
        try Data((id + "\n").utf8).write(to: URL(fileURLWithPath: state + "/device-id"))
    }

    /// What each device logs to standard error: nothing, unless a replay
    /// asks (`RETIME_FLEET_LOG=notice`) to see what each decided.
    static let logLevel = ProcessInfo.processInfo.environment["RETIME_FLEET_LOG"].flatMap(LogLevel.init(rawValue:)) ?? .critical

    var environment: [String: String] {
        ["HOME": machine + "/home", "XDG_STATE_HOME": machine + "/state", "TZ": "UTC",
         "RETIME_SHIELD_SOCKET": machine + "/no-service.sock", "PATH": "/usr/bin:/bin"]
    }

    /// The CLI's registration on this machine's folders and clock, with a
    /// spy over the shields (what the simulation checks blocks by).
    func registry() -> Registry {
        let clock = self.clock, id = self.id, data = self.data
        let layout = DataLayout(root: data)
        let folder = LocalDeviceFolder(deviceID: { id }, moves: { layout.machineFiles(device: $0) })
        let store = DataFolderStore.open(root: data, device: folder, now: { clock.now() }, boot: { clock.bootTime() })
        let runtime = RuntimeContext(dataDirectory: data, logLevel: Self.logLevel, environment: environment, store: store)
        var registry = CLIRoot.registry(runtime)
        registry.register((any RetimeShared.Clock).self, value: clock)
        let log = shieldLog
        registry.register((any ShieldDirectory).self) { SpyingShields(inner: try $0.resolve(ConfiguredShields.self), log: log) }
        registry.register((any SyncFolder).self, value: FileSyncFolder(root: data, deviceID: { id }, now: { clock.now() }))
        registry.register((any DeviceDirectory).self, value: DataFolderDevices(thisDevice: { id }, directory: data + "/devices", clock: clock,
                                                                                      arrival: arrivals.arrival))
        return registry
    }

    /// Runs `body` as one retime process would: a container of its own,
    /// reconciled first when `reconciling` (the CLI's root does so for
    /// every command but the session use cases, which do it themselves),
    /// torn down after, whatever happens.
    func command<T>(reconciling: Bool = false, _ body: (Container) async throws -> T) async throws -> T {
        let container = Container(registry())
        do {
            if reconciling { _ = try await container.resolve(ActiveSession.self).reconcile() }
            let result = try await body(container)
            await container.teardown()
            return result
        } catch {
            await container.teardown()
            throw error
        }
    }
}

/// The raises and lowers one device's shields were asked for.
final class ShieldLog: Sendable {
    enum Entry: Equatable, Sendable {
        case raise(SessionID)
        case lower(SessionID)
    }

    private let entries = Mutex<[Entry]>([])

    func append(_ entry: Entry) { entries.withLock { $0.append(entry) } }

    /// Takes the entries made since the last call.
    func drain() -> [Entry] {
        entries.withLock { entries in
            defer { entries.removeAll() }
            return entries
        }
    }
}

/// The shield directory of the composition root, each shield it hands out
/// wrapped so that its raises and lowers are logged.
struct SpyingShields: ShieldDirectory {
    let inner: any ShieldDirectory
    let log: ShieldLog

    func configured() throws -> any Shield { SpyingShield(inner: try inner.configured(), log: log) }
    func shield(identity: String) throws -> any Shield { SpyingShield(inner: try inner.shield(identity: identity), log: log) }
    var device: String? { inner.device }
}

struct SpyingShield: Shield {
    let inner: any Shield
    let log: ShieldLog

    var identity: String { inner.identity }

    func raise(_ targets: [Target], for session: SessionID) async throws {
        log.append(.raise(session))
        try await inner.raise(targets, for: session)
    }

    func raise(_ targets: [Target], for session: Session) async throws {
        log.append(.raise(session.id))
        try await inner.raise(targets, for: session)
    }

    func lower(for session: SessionID) async throws {
        try await inner.lower(for: session)
        log.append(.lower(session))
    }

    func lower(for session: SessionID, passcode: Passcode?, typed: Int?) async throws {
        try await inner.lower(for: session, passcode: passcode, typed: typed)
        log.append(.lower(session))
    }

    func state() async throws -> ShieldState? { try await inner.state() }
    func reach(askingAboutApps: Bool) async -> ShieldReach { await inner.reach(askingAboutApps: askingAboutApps) }
}

/// When the fabric delivered each file to one machine, on its clock.
final class ArrivalBook: Sendable {
    private let book = Mutex<[String: Date]>([:])

    func record(_ path: String, at instant: Date) { book.withLock { $0[path] = instant } }

    /// The arrival of the file at `path`: when it was delivered, else
    /// (this machine's own files) nil.
    var arrival: @Sendable (String) -> Date? {
        { path in self.book.withLock { $0[path] } }
    }
}
