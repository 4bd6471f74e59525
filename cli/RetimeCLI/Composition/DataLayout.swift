/// Where everything of one data directory lives (docs/storage.md): the one
/// place a path inside it is spelt. The system service's state directory
/// has a layout of its own (`SystemRoot`).
public struct DataLayout: Sendable, Equatable {
    public let root: String

    public init(root: String) {
        self.root = root
    }

    /// The key-value store's suites, their locks and backups.
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
    /// The lifecycle events, one JSON line each.
    public var events: String { root + "/events.jsonl" }
    /// Every passcode attempt.
    public var audit: String { root + "/audit.jsonl" }
    /// The daemon's log.
    public var daemonLog: String { root + "/logs/daemon.log" }
    /// What hooks printed.
    public var hooksLog: String { root + "/logs/hooks.log" }
}
