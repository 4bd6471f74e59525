import FoundationEssentials

/// The devices that share a data folder, as the domain sees them: this
/// device's id (a lowercase UUID, made on first use), the name each device
/// gave itself (`retime device name`), and how far each one's clock is from
/// this one's. Ids are compared as text.
public protocol DeviceDirectory: Sendable {
    /// This device's id; throws when it cannot be read or made (a damaged
    /// id file, which `doctor --repair` mends).
    func thisDevice() throws -> String
    /// The name `device` gave itself, nil when it has none (or its file
    /// cannot be read): a name is for people, never needed to act.
    func name(of device: String) -> String?
    /// How far `device`'s clock is ahead of this one's, in seconds
    /// (negative: behind), as estimated from what it wrote against when
    /// that reached this machine (semantics.md, "Clocks"). Never above the
    /// truth by more than that device's clock was set back since: the
    /// time a change spent on the way only lowers it. Nil when nothing
    /// tells (no readable change of that device here, or this device).
    func clockOffset(of device: String) -> TimeInterval?
}
