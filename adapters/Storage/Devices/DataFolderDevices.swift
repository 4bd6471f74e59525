#if canImport(Glibc)
import Domain
import FoundationEssentials
import Glibc
import JSONDocument
#endif

/// The devices of a data folder (`DeviceDirectory`): this device's id from
/// its `DeviceIdentity` (outside the folder), each device's name from
/// `DATA_DIR/devices/<id>/device.json`, field `"name"`, which only that
/// device writes, and each one's clock against this one's from its change
/// logs (`PeerClocks`; docs/storage.md, "Devices").
public struct DataFolderDevices: DeviceDirectory {
    let deviceID: @Sendable () throws -> String
    /// `DATA_DIR/devices`.
    let directory: String
    private let clocks: PeerClocks

    /// `thisDevice`: the id (`DeviceIdentity.loadOrCreate`, or the
    /// process's `RememberedDeviceID`). `clock`: this machine's, which
    /// the others' are told against. `arrival`: when a file reached this
    /// machine, on that clock (by default its change time; a simulation's
    /// clocks say it otherwise).
    public init(thisDevice: @escaping @Sendable () throws -> String, directory: String, clock: any RetimeShared.Clock,
                arrival: (@Sendable (String) -> Date?)? = nil) {
        deviceID = thisDevice
        self.directory = directory
        clocks = PeerClocks(directory: directory, thisDevice: thisDevice, clock: clock, arrival: arrival)
    }

    public func clockOffset(of device: String) -> TimeInterval? {
        guard UUIDText.parse(device) != nil, device != (try? deviceID()) else { return nil }
        return clocks.offset(of: device)
    }

    public init(identity: DeviceIdentity, directory: String, clock: any RetimeShared.Clock) {
        self.init(thisDevice: { try identity.loadOrCreate() }, directory: directory, clock: clock)
    }

    public func thisDevice() throws -> String { try deviceID() }

    /// Nil for anything but a UUID (an id read from a synced file must never
    /// become a path outside `devices/`), for a missing, damaged or
    /// oversized file (bounded read, regular files only), and for a name
    /// that is not a non-empty string or holds control characters (it is
    /// printed to a terminal, and a synced file is not checked by the
    /// device that reads it).
    public func name(of device: String) -> String? {
        guard UUIDText.parse(device) != nil, !device.contains("/"),
              let bytes = try? POSIXFiles.read(directory + "/" + device + "/device.json", limit: 64 << 10),
              case .object(let members)? = try? JSONText.parse(bytes),
              case .string(let name)? = members["name"], !name.trimmed.isEmpty,
              !name.unicodeScalars.contains(where: { $0.properties.generalCategory == .control }) else { return nil }
        return name
    }
}
