import Adapters
import Domain
import Foundation
import PortContracts
import Testing

/// The devices of a data folder: ids from the state directory, names from
/// `devices/<id>/device.json`.
@Suite("DataFolderDevices keeps the DeviceDirectory contract")
struct DataFolderDevicesTests {
    static func subject() -> (DeviceDirectoryContract.Subject, TemporaryDirectory) {
        let directory = TemporaryDirectory()
        let devices = DataFolderDevices(identity: DeviceIdentity(file: directory.file("state/device-id"), legacyFile: directory.file("data/device-id")),
                                        directory: directory.file("data/devices"))
        return (DeviceDirectoryContract.Subject(devices: devices) { device, name in
            try FileManager.default.createDirectory(atPath: directory.file("data/devices/" + device), withIntermediateDirectories: true)
            let json = try JSONSerialization.data(withJSONObject: ["format": "retime.device", "version": 1, "name": name, "seen": [String: String]()])
            try json.write(to: URL(fileURLWithPath: directory.file("data/devices/\(device)/device.json")))
        }, directory)
    }

    @Test(arguments: DeviceDirectoryContract.checks)
    func contract(_ check: ContractCheck<DeviceDirectoryContract.Factory>) async throws {
        try await check.run { Self.subject().0 }
    }

    @Test("a damaged, oversized or irregular device.json, a name that is not text or holds control characters, is no name (never an error)")
    func damagedNames() throws {
        let (subject, directory) = Self.subject()
        let id = UUID().uuidString.lowercased(), file = directory.file("data/devices/\(id)/device.json")
        try FileManager.default.createDirectory(atPath: directory.file("data/devices/" + id), withIntermediateDirectories: true)
        for content in ["{\"name\":", "{\"name\":\"a\\u001b[2Jb\"}", "{\"name\":\"a\\nb\"}", "{\"name\":42}", "{\"name\":\"  \"}", "[]", String(repeating: " ", count: 70_000) + "{\"name\":\"x\"}"] {
            try Data(content.utf8).write(to: URL(fileURLWithPath: file))
            #expect(subject.devices.name(of: id) == nil, "\(content.prefix(20))")
        }
        try FileManager.default.removeItem(atPath: file)
        try FileManager.default.createSymbolicLink(atPath: file, withDestinationPath: "/dev/zero")
        #expect(subject.devices.name(of: id) == nil)
    }
}
