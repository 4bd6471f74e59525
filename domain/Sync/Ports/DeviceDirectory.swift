/// The devices that share a data folder, as the domain sees them: this
/// device's id (a lowercase UUID, made on first use) and the name each
/// device gave itself (`retime device name`). Ids are compared as text.
public protocol DeviceDirectory: Sendable {
    /// This device's id; throws when it cannot be read or made (a damaged
    /// id file, which `doctor --repair` mends).
    func thisDevice() throws -> String
    /// The name `device` gave itself, nil when it has none (or its file
    /// cannot be read): a name is for people, never needed to act.
    func name(of device: String) -> String?
}
