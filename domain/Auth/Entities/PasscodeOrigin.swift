import FoundationEssentials

/// Which device last set, changed or removed the passcode, and when by its
/// clock, where the passcode is shared by every device of a data folder
/// (docs/storage.md, "The passcode"): what `auth status` tells a person
/// who finds a passcode they set on another machine.
public struct PasscodeOrigin: Sendable, Equatable {
    /// The device's id.
    public var device: String
    /// Its name (`retime device name`), if it has one.
    public var deviceName: String?
    /// The wall-clock part of the change's hybrid clock reading.
    public var at: Date
    /// Whether it is this device.
    public var isThisDevice: Bool

    public init(device: String, deviceName: String? = nil, at: Date, isThisDevice: Bool) {
        self.device = device
        self.deviceName = deviceName
        self.at = at
        self.isThisDevice = isThisDevice
    }
}
