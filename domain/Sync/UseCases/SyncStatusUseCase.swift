import FoundationEssentials
import RetimeShared

/// `retime sync status`: surveys the shared data folder, works out each
/// device's lag, and keeps this device's record of what it has seen
/// current, so that the other devices can work out how far behind it is.
public struct SyncStatusUseCase: Sendable {
    private let folder: any SyncFolder
    private let devices: any DeviceDirectory
    private let clock: any Clock

    public init(folder: any SyncFolder, devices: any DeviceDirectory, clock: any Clock) {
        self.folder = folder
        self.devices = devices
        self.clock = clock
    }

    /// The status; with `recording`, this device's seen map is brought up
    /// to date too (`doctor`, which changes nothing unasked, does not).
    public func execute(recording: Bool = true) throws -> SyncStatus {
        let survey = try folder.survey()
        var offsets: [String: TimeInterval] = [:]
        for device in survey.devices where device.id != survey.device {
            offsets[device.id] = devices.clockOffset(of: device.id)
        }
        let status = SyncStatus(survey, now: clock.now(), offsets: offsets)
        // Best effort: a read-only folder still gets its status.
        if recording { _ = try? folder.recordSeen(status.seen) }
        return status
    }
}

/// `retime device name [NAME]`.
public struct DeviceNameUseCase: Sendable {
    private let folder: any SyncFolder

    public init(folder: any SyncFolder) {
        self.folder = folder
    }

    /// This device's id and name (nil when none is set).
    public func current() throws -> (id: String, name: String?) {
        (try folder.deviceID(), try folder.deviceName())
    }

    /// Sets the name, validated; returns it as kept.
    public func rename(to text: String) throws -> String {
        let name = try DeviceName.validate(text)
        try folder.setDeviceName(name)
        return name
    }
}
