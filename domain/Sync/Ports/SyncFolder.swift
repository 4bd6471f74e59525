/// The data folder as several devices share it (docs/storage.md,
/// "Devices"): this device's name and what every device's files say.
/// Each device writes only its own `device.json`.
public protocol SyncFolder: Sendable {
    /// This device's id.
    func deviceID() throws -> String
    /// This device's name, or nil when none is set.
    func deviceName() throws -> String?
    /// Sets this device's name (already validated).
    func setDeviceName(_ name: String) throws
    /// What every device's files say: names, last changes, what each has
    /// seen, conflict copies, unreadable files.
    func survey() throws -> SyncSurvey
    /// Records, in this device's `device.json`, the newest change of each
    /// other device it has; written only when it changed, and (after the first) at most once
    /// a minute. Returns whether it wrote.
    @discardableResult
    func recordSeen(_ seen: [String: HybridTimestamp]) throws -> Bool
}
