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
        /// Lets a change of `device` reach this one: written when that
        /// device's clock read this one's now plus `ahead` (seconds), and
        /// on its way for `delay` seconds before it arrived now.
        public var change: @Sendable (_ device: String, _ ahead: TimeInterval, _ delay: TimeInterval) throws -> Void

        public init(devices: any DeviceDirectory, name: @escaping @Sendable (String, String) throws -> Void,
                    change: @escaping @Sendable (String, TimeInterval, TimeInterval) throws -> Void) {
            self.devices = devices
            self.name = name
            self.change = change
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
        ContractCheck("no clock offset for this device, for a device that wrote nothing, or for what is not a device id") { make in
            let subject = try await make()
            let here = try subject.devices.thisDevice()
            try subject.change(here, 3_600, 0)
            try requireEqual(subject.devices.clockOffset(of: here), nil, "this device's offset")
            try requireEqual(subject.devices.clockOffset(of: UUID().uuidString.lowercased()), nil, "a silent device's offset")
            try requireEqual(subject.devices.clockOffset(of: "../x"), nil, "the offset of '../x'")
        },
        ContractCheck("a change that arrived at once tells the other clock's offset, ahead or behind") { make in
            let subject = try await make()
            let ahead = UUID().uuidString.lowercased(), behind = UUID().uuidString.lowercased()
            try subject.change(ahead, 3_600, 0)
            try subject.change(behind, -300, 0)
            let found = (subject.devices.clockOffset(of: ahead), subject.devices.clockOffset(of: behind))
            try require(found.0.map { abs($0 - 3_600) < 1 } == true, "an hour ahead, estimated \(String(describing: found.0))")
            try require(found.1.map { abs($0 + 300) < 1 } == true, "five minutes behind, estimated \(String(describing: found.1))")
        },
        ContractCheck("a change long on its way makes the other clock look behind by as long, never ahead") { make in
            let subject = try await make()
            let other = UUID().uuidString.lowercased()
            try subject.change(other, 120, 600)
            let found = subject.devices.clockOffset(of: other)
            try require(found.map { $0 <= 120 && $0 > -481 } == true, "two minutes ahead, 10 minutes on the way: \(String(describing: found))")
        },
        ContractCheck("what is not a device id names no device") { make in
            let subject = try await make()
            for text in ["", "..", "../x", "/etc", "laptop"] {
                try requireEqual(subject.devices.name(of: text), nil, "the name of '\(text)'")
            }
        },
    ]
}
