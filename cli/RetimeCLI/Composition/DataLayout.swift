import Adapters

/// Where everything of one data directory lives (docs/storage.md): the one
/// place a path inside it is spelt. The system service's state directory
/// has a layout of its own (`SystemRoot`).
public struct DataLayout: Sendable, Equatable {
    public let root: String

    public init(root: String) {
        self.root = root
    }

    /// The single-device layout's suites (migrated, `store/data.lock` stays), their locks and backups.
    public var store: String { root + "/store" }
    /// Where this device's id was kept before it moved out of the data
    /// directory (`DeviceIdentity`): adopted once, then renamed aside.
    public var legacyDeviceID: String { root + "/device-id" }
    /// One folder per device sharing the data folder: what only that device
    /// writes, its change logs and `device.json` (its name) among them
    /// (docs/storage.md, "Devices").
    public var devices: String { root + "/devices" }
    /// Per-device, append-only history segments.
    public var history: String { root + "/history" }

    /// This device's own folder (`devices/<id>/`): what only this machine
    /// writes, so that a sync tool never carries one machine's files over
    /// another's (docs/storage.md, "Devices").
    public func device(_ id: String) -> DeviceFolderLayout {
        DeviceFolderLayout(root: devices + "/" + id)
    }

    /// Where the single-device layout kept this machine's own files
    /// (`DATA_DIR/store/shield.json`, `DATA_DIR/events.jsonl`, ...) and
    /// where each moves in this device's folder: renamed into place once,
    /// on first use (`LocalDeviceFolder`).
    public func machineFiles(device id: String) -> [LocalDeviceFolder.Move] {
        let folder = device(id)
        let suites = DeviceFolderLayout.machineSuites.map { $0 + ".json" }
        return suites.map { LocalDeviceFolder.Move(from: store, to: folder.store, name: $0) }
            + suites.map { LocalDeviceFolder.Move(from: store + "/backups", to: folder.store + "/backups", name: $0, rotations: true) }
            + [LocalDeviceFolder.Move(from: root + "/logs", to: folder.logs, name: "daemon.log", rotations: true),
               LocalDeviceFolder.Move(from: root + "/logs", to: folder.logs, name: "hooks.log", rotations: true),
               LocalDeviceFolder.Move(from: root, to: folder.root, name: "events.jsonl", rotations: true),
               LocalDeviceFolder.Move(from: root, to: folder.root, name: "audit.jsonl", rotations: true),
               LocalDeviceFolder.Move(from: root, to: folder.root, name: "daemon.lock")]
    }

    /// Where a daemon of a retime before per-device folders holds its lock:
    /// still looked at, so that one running through an upgrade is seen.
    public var legacyDaemonLock: String { root + "/daemon.lock" }
    /// Where the old layout kept the daemon's log.
    public var legacyDaemonLog: String { root + "/logs/daemon.log" }
}

/// The files of this device's folder, `DATA_DIR/devices/<id>/`.
public struct DeviceFolderLayout: Sendable, Equatable {
    public let root: String

    /// The suites only this machine writes: the `none` shield's record,
    /// handled interval events, the passcode's state, and the per-machine
    /// settings (`machine`).
    public static let machineSuites = ["shield", "intervals", "auth", "machine"]

    /// This machine's key-value suites, their locks and backups.
    public var store: String { root + "/store" }
    public var logs: String { root + "/logs" }
    /// The lifecycle events, one JSON line each.
    public var events: String { root + "/events.jsonl" }
    /// Every passcode attempt.
    public var audit: String { root + "/audit.jsonl" }
    /// The daemon's log.
    public var daemonLog: String { logs + "/daemon.log" }
    /// What hooks printed.
    public var hooksLog: String { logs + "/hooks.log" }
    /// Held by the running daemon (`DaemonLock`).
    public var daemonLock: String { root + "/daemon.lock" }
}
