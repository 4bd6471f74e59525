import Domain

/// The rules every `SyncFolder` keeps.
public enum SyncFolderContract {
    public typealias Factory = @Sendable () async throws -> any SyncFolder

    static let peer = "0b1c2d3e-0000-4000-8000-0000000000aa"

    public static let checks: [ContractCheck<Factory>] = [
        ContractCheck("no name until one is set; a name set is read back and shown for this device in the survey") { make in
            let folder = try await make()
            try requireEqual(try folder.deviceName(), nil, "the name of a new device")
            try folder.setDeviceName("laptop")
            try requireEqual(try folder.deviceName(), "laptop", "the name set")
            try folder.setDeviceName("desk")
            try requireEqual(try folder.deviceName(), "desk", "the name set again")
            let survey = try folder.survey()
            let id = try folder.deviceID()
            try requireEqual(survey.device, id, "the survey's device")
            try requireEqual(survey.devices.first { $0.id == id }?.name, "desk", "this device's name in the survey")
        },
        ContractCheck("what this device has seen is recorded once per change and read back in the survey, its name kept") { make in
            let folder = try await make()
            try folder.setDeviceName("laptop")
            let seen = [peer: HybridTimestamp(milliseconds: 1_795_000_000_000, counter: 3, device: peer)]
            try requireEqual(try folder.recordSeen(seen), true, "the first record is written")
            try requireEqual(try folder.recordSeen(seen), false, "the same record is not written again")
            let own = try folder.survey().devices.first { $0.id == (try? folder.deviceID()) }
            try requireEqual(own?.seen, seen, "the record read back")
            try requireEqual(own?.name, "laptop", "the name kept beside it")
        },
        ContractCheck("an id that is a device id, the same on every call") { make in
            let folder = try await make()
            let id = try folder.deviceID()
            try require(HybridTimestamp.isDeviceID(id), "'\(id)' is a device id")
            try requireEqual(try folder.deviceID(), id, "asked again")
        },
    ]
}
