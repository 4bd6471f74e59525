import Domain
import FoundationEssentials
import Synchronization
import Testing

/// How `sync status` works out lag, and which device names it takes.
@Suite struct SyncStatusTests {
    static let me = "me"
    static func at(_ seconds: Int64, _ device: String) -> HybridTimestamp { HybridTimestamp(milliseconds: seconds * 1_000, device: device) }

    @Test func lagIsMyNewestChangeMinusTheNewestOfMineTheOtherRecorded() {
        let survey = SyncSurvey(device: Self.me, devices: [
            SyncSurvey.Device(id: Self.me, lastChange: Self.at(10_000, Self.me)),
            SyncSurvey.Device(id: "behind", lastChange: Self.at(50, "behind"), seen: [Self.me: Self.at(6_400, Self.me)]),
            SyncSurvey.Device(id: "caught-up", seen: [Self.me: Self.at(10_000, Self.me)]),
            SyncSurvey.Device(id: "ahead-clock", seen: [Self.me: Self.at(20_000, Self.me)]),
            SyncSurvey.Device(id: "silent"),
        ], conflicts: ["b", "a"])
        let status = SyncStatus(survey)
        let lag = Dictionary(uniqueKeysWithValues: status.devices.map { ($0.id, $0.behindSeconds) })
        #expect(lag == [Self.me: 0, "behind": 3_600, "caught-up": 0, "ahead-clock": 0, "silent": nil])
        #expect(status.device.id == Self.me && status.device.lastChangeAt == Date(timeIntervalSince1970: 10_000))
        #expect(status.conflicts == ["a", "b"])
        #expect(status.seen == ["behind": Self.at(50, "behind")], "what this device records: the others' newest changes it has")
        #expect(status.behind(moreThan: 3_599).map(\.id) == ["behind"])
    }

    @Test func deviceNamesArePrintableAndShort() throws {
        #expect(try DeviceName.validate("  laptop ") == "laptop")
        #expect(try DeviceName.validate(String(repeating: "名", count: 64)).count == 64)
        for bad in ["", "  ", "a\u{7}b", "line\nbreak", "bidi\u{202E}", String(repeating: "x", count: 65)] {
            #expect(throws: SyncError.self, "\(bad.debugDescription)") { try DeviceName.validate(bad) }
        }
        #expect(SyncError.invalidDeviceName("x", reason: "r").kind == .invalidInput)
    }

    @Test func statusRecordsWhatThisDeviceHasSeen() throws {
        let survey = SyncSurvey(device: Self.me, devices: [SyncSurvey.Device(id: Self.me), SyncSurvey.Device(id: "b", lastChange: Self.at(5, "b"))])
        let folder = RecordingFolder(survey: survey)
        _ = try SyncStatusUseCase(folder: folder).execute(recording: false)
        #expect(folder.recorded.withLock { $0 }.isEmpty, "doctor's survey writes nothing")
        _ = try SyncStatusUseCase(folder: folder).execute()
        #expect(folder.recorded.withLock { $0 } == [["b": Self.at(5, "b")]])
    }
}

final class RecordingFolder: SyncFolder {
    let surveyed: SyncSurvey
    let recorded = Mutex<[[String: HybridTimestamp]]>([])
    init(survey: SyncSurvey) { surveyed = survey }
    func deviceID() throws -> String { surveyed.device }
    func deviceName() throws -> String? { nil }
    func setDeviceName(_ name: String) throws {}
    func survey() throws -> SyncSurvey { surveyed }
    func recordSeen(_ seen: [String: HybridTimestamp]) throws -> Bool { recorded.withLock { $0.append(seen) }; return true }
}
