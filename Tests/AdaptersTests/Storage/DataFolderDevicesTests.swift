import Adapters
import Domain
import Foundation
import PortContracts
import Synchronization
import Testing

/// The devices of a data folder: ids from the state directory, names from
/// `devices/<id>/device.json`.
@Suite("DataFolderDevices keeps the DeviceDirectory contract")
struct DataFolderDevicesTests {
    static func subject() -> (DeviceDirectoryContract.Subject, TemporaryDirectory) {
        let directory = TemporaryDirectory()
        let identity = DeviceIdentity(file: directory.file("state/device-id"), legacyFile: directory.file("data/device-id"))
        let clock = ManualClock(), arrivals = Arrivals()
        let devices = DataFolderDevices(thisDevice: { try identity.loadOrCreate() }, directory: directory.file("data/devices"), clock: clock,
                                        arrival: { path in arrivals.book.withLock { $0[path] } })
        return (DeviceDirectoryContract.Subject(devices: devices, name: { device, name in
            try FileManager.default.createDirectory(atPath: directory.file("data/devices/" + device), withIntermediateDirectories: true)
            let json = try JSONSerialization.data(withJSONObject: ["format": "retime.device", "version": 1, "name": name, "seen": [String: String]()])
            try json.write(to: URL(fileURLWithPath: directory.file("data/devices/\(device)/device.json")))
        }, change: { device, ahead, delay in
            // One line more in that device's log of the session slot,
            // stamped by its clock, arriving on this machine's now.
            let folder = directory.file("data/devices/\(device)/changes"), path = folder + "/session.jsonl"
            try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
            let reading = Int64((clock.now().timeIntervalSince1970 + ahead - delay) * 1_000)
            let line = #"{"at":"\#(reading)-0-\#(device)","key":"current"}"# + "\n"
            let old = FileManager.default.contents(atPath: path) ?? Data()
            try (old + Data(line.utf8)).write(to: URL(fileURLWithPath: path))
            arrivals.book.withLock { $0[path] = clock.now() }
        }), directory)
    }

    /// When each file arrived, on the test's clock.
    final class Arrivals: Sendable {
        let book = Mutex<[String: Date]>([:])
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
