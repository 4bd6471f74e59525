import Adapters
import Domain
import FoundationEssentials
#if canImport(Glibc)
import Glibc
#endif

/// What a composition root knows before it builds anything: where the data
/// lives and how verbose to be.
public struct RuntimeContext: Sendable {
    public var dataDirectory: String
    public var logLevel: LogLevel
    public var environment: [String: String]
    /// The data directory's store, one per process: whoever reads a suite
    /// first (the log level, before any service exists) parses it for all.
    public let store: DataFolderStore
    /// This device's id (`deviceIdentity`), read once per process.
    public let deviceID: RememberedDeviceID

    public init(dataDirectory: String, logLevel: LogLevel, environment: [String: String], store: DataFolderStore? = nil) {
        self.dataDirectory = dataDirectory
        self.logLevel = logLevel
        self.environment = environment
        deviceID = RememberedDeviceID(Self.identity(dataDirectory: dataDirectory, environment: environment))
        self.store = store ?? Self.store(of: dataDirectory, deviceID: deviceID)
    }

    /// The store of the data folder at `dataDirectory`: its shared suites in
    /// this device's and the others' change logs (docs/storage.md, "Devices");
    /// this device is the one `environment` names (`deviceIdentity`).
    public static func store(of dataDirectory: String, environment: [String: String]) -> DataFolderStore {
        store(of: dataDirectory, deviceID: RememberedDeviceID(identity(dataDirectory: dataDirectory, environment: environment)))
    }

    private static func store(of dataDirectory: String, deviceID: RememberedDeviceID) -> DataFolderStore {
        let layout = DataLayout(root: dataDirectory)
        // Resolved on first use, not here: the id is created (and the old
        // layout's machine files moved) only by a process that reads or
        // writes this machine's files.
        let device = LocalDeviceFolder(deviceID: { try deviceID.id() }, moves: { layout.machineFiles(device: $0) })
        return DataFolderStore.open(root: dataDirectory, device: device, now: { SystemClock().now() }, boot: { SystemClock().bootTime() })
    }

    /// This device's folder of the data directory (`devices/<id>/`): its id
    /// read or created, and the machine's files of the old layout moved in,
    /// when first asked.
    public func device() throws -> DeviceFolderLayout {
        layout.device(try store.device?.id() ?? deviceID.id())
    }

    /// Where each file of the data directory lives.
    public var layout: DataLayout { DataLayout(root: dataDirectory) }

    /// This device's id: `$XDG_STATE_HOME/retime/device-id` (else
    /// `~/.local/state/retime/device-id`), outside the data directory, so a
    /// synced data folder never carries it to another machine; the data
    /// directory's old `device-id` is adopted once.
    public var deviceIdentity: DeviceIdentity { Self.identity(dataDirectory: dataDirectory, environment: environment) }

    private static func identity(dataDirectory: String, environment: [String: String]) -> DeviceIdentity {
        DeviceIdentity(file: DeviceIdentity.file(environment: environment), legacyFile: DataLayout(root: dataDirectory).legacyDeviceID)
    }

    /// Where clients find the system service: `$RETIME_SHIELD_SOCKET`, else
    /// `/run/retime/shield.sock` (cli.md, "The system service").
    public var shieldSocket: String {
        environment["RETIME_SHIELD_SOCKET"].flatMap { $0.isEmpty ? nil : $0 } ?? ShieldClient.defaultSocket
    }

    /// `--data-dir`, else `$RETIME_HOME`, else `$XDG_DATA_HOME/retime`, else
    /// `~/.local/share/retime` (cli.md, "Global").
    public static func dataDirectory(option: String?, environment: [String: String]) -> String {
        if let option, !option.isEmpty { return absolute(option, environment: environment) }
        if let home = environment["RETIME_HOME"], !home.isEmpty { return absolute(home, environment: environment) }
        if let xdg = environment["XDG_DATA_HOME"], xdg.hasPrefix("/") { return xdg + "/retime" }
        let home = environment["HOME"].flatMap { $0.isEmpty ? nil : $0 } ?? FileManager.default.homeDirectoryForCurrentUser.path
        return home + "/.local/share/retime"
    }

    private static func absolute(_ path: String, environment: [String: String]) -> String {
        if path.hasPrefix("/") { return path }
        if path == "~" || path.hasPrefix("~/") { return (environment["HOME"] ?? FileManager.default.homeDirectoryForCurrentUser.path) + path.dropFirst() }
        return FileManager.default.currentDirectoryPath + "/" + path
    }
}
