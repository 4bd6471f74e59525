@testable import Adapters
import Domain
import Foundation
import JSONDocument
import Testing

/// The settings that belong to a machine (`shield`, `shield.hostsFile`,
/// `hooks.dir`, `log.level`) live in its own `machine` suite; a folder whose
/// shared `config` log already holds them gives each machine the values it
/// wrote itself, never another device's (docs/storage.md, "Devices").
@Suite struct MachineSettingsTests {
    static let a = "aaaaaaaa-0000-4000-8000-00000000000a", b = "bbbbbbbb-0000-4000-8000-00000000000b",
               c = "cccccccc-0000-4000-8000-00000000000c"

    /// A folder of change logs where A set `shield` and `defaultGroup`, and B
    /// set `shield` later and `log.level` then removed it.
    static func folder() throws -> String {
        let root = TemporaryDirectory().file("data")
        func log(_ device: String, _ lines: [String]) throws {
            let folder = root + "/devices/\(device)/changes"
            try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
            try Data(lines.map { $0 + "\n" }.joined().utf8).write(to: URL(fileURLWithPath: folder + "/config.jsonl"))
        }
        try log(a, [#"{"at":"1795000000000-0-\#(a)","key":"shield","value":"hosts"}"#,
                    #"{"at":"1795000000001-0-\#(a)","key":"defaultGroup","value":"work"}"#])
        try log(b, [#"{"at":"1795000009000-0-\#(b)","key":"shield","value":"none"}"#,
                    #"{"at":"1795000009001-0-\#(b)","key":"log.level","value":"debug"}"#,
                    #"{"at":"1795000009002-0-\#(b)","key":"log.level","delete":true}"#])
        try Data(#"{"format":"retime.data","version":2}"#.utf8).write(to: URL(fileURLWithPath: root + "/layout.json"))
        return root
    }

    @Test("each device takes the machine keys it wrote itself; another's (even a later one) is ignored; shared keys stay shared")
    func eachMachineItsOwn() async throws {
        let root = try Self.folder()
        func settings(_ device: String) -> StoreSettings {
            StoreSettings(store: DataFolderStore.open(root: root, deviceID: { device }, now: { Date() }))
        }
        #expect(try await settings(Self.a).value(for: "shield") == "hosts")
        #expect(try await settings(Self.b).value(for: "shield") == "none")
        #expect(try await settings(Self.b).value(for: "log.level") == nil, "removed by B")
        #expect(try await settings(Self.c).value(for: "shield") == nil, "C never set one")
        #expect(try await settings(Self.c).value(for: "defaultGroup") == "work", "the person's setting is shared")
        // Set on C: C's own, never seen by A.
        try await settings(Self.c).set("none", for: "shield")
        #expect(try await settings(Self.a).value(for: "shield") == "hosts")
        #expect(try await settings(Self.c).all()["shield"] == "none")
        #expect(FileManager.default.fileExists(atPath: root + "/devices/\(Self.c)/store/machine.json"))
    }
}
