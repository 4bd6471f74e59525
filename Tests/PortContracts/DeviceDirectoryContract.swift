import Domain
import Foundation

/// The rules every `DeviceDirectory` keeps: this device has one id, a
/// lowercase UUID, the same at every call; a device's name is the one it
/// gave itself, nil when it has none; anything that is not a device id
/// names no device (an id read from a synced file never reaches outside).
/// The factory gives the directory and a way to name a device as
/// `retime device name` on that device would.
public enum DeviceDirectoryContract {
    public struct Subject: Sendable {
        public var devices: any DeviceDirectory
        public var name: @Sendable (_ device: String, _ name: String) throws -> Void

        public init(devices: any DeviceDirectory, name: @escaping @Sendable (String, String) throws -> Void) {
            self.devices = devices
            self.name = name
        }
    }

    public typealias Factory = @Sendable () async throws -> Subject

    public static let checks: [ContractCheck<Factory>] = [
        ContractCheck("this device's id is a lowercase UUID, the same at every call") { make in
            let subject = try await make()
            let id = try subject.devices.thisDevice()
            try require(UUID(uuidString: id) != nil && id == id.lowercased(), "not a lowercase UUID: \(id)")
            try requireEqual(try subject.devices.thisDevice(), id, "the id at the second call")
        },
        ContractCheck("a device's name is the one it gave itself; a device without one has none") { make in
            let subject = try await make()
            let here = try subject.devices.thisDevice(), other = UUID().uuidString.lowercased()
            try requireEqual(subject.devices.name(of: here), nil, "the name of a device that gave none")
            try subject.name(other, "laptop")
            try requireEqual(subject.devices.name(of: other), "laptop", "another device's name")
            try requireEqual(subject.devices.name(of: here), nil, "this device's name after another named itself")
        },
        ContractCheck("what is not a device id names no device") { make in
            let subject = try await make()
            for text in ["", "..", "../x", "/etc", "laptop"] {
                try requireEqual(subject.devices.name(of: text), nil, "the name of '\(text)'")
            }
        },
    ]
}
