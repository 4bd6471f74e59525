import Adapters
import Domain
import FoundationEssentials
import Synchronization
import Testing

/// How `sync status` works out lag, and which device names it takes.
@Suite struct SyncStatusTests {
    static let me = "me"
    static func at(_ seconds: Int64, _ device: String) -> HybridTimestamp { HybridTimestamp(milliseconds: seconds * 1_000, device: device) }

    /// semantics.md: `behindSeconds` is how long ago the oldest change of
    /// this device that the other has not recorded seeing was made; not
    /// the gap between the newest changes (which read a device in sync as
    /// minutes behind whenever this one changed twice a minute apart).
    @Test func lagIsHowLongAgoTheOldestChangeTheOtherHasNotSeenWasMade() {
        let mine = [6_400, 7_000, 9_000, 10_000].map { SyncSurvey.Change(at: Self.at(Int64($0), Self.me), madeAt: Date(timeIntervalSince1970: Double($0))) }
        let survey = SyncSurvey(device: Self.me, devices: [
            SyncSurvey.Device(id: Self.me, lastChange: Self.at(10_000, Self.me)),
            SyncSurvey.Device(id: "behind", lastChange: Self.at(50, "behind"), seen: [Self.me: Self.at(6_400, Self.me)]),
            SyncSurvey.Device(id: "caught-up", seen: [Self.me: Self.at(10_000, Self.me)]),
            SyncSurvey.Device(id: "ahead-clock", seen: [Self.me: Self.at(20_000, Self.me)]),
            SyncSurvey.Device(id: "silent"),
        ], conflicts: ["b", "a"], changes: mine)
        let status = SyncStatus(survey, now: Date(timeIntervalSince1970: 10_002), offsets: ["behind": -3_700, "caught-up": 12])
        let lag = Dictionary(uniqueKeysWithValues: status.devices.map { ($0.id, $0.behindSeconds) })
        #expect(lag == [Self.me: 0, "behind": 3_002, "caught-up": 0, "ahead-clock": 0, "silent": nil])
        #expect(status.clocksOff.map(\.id) == ["behind"], "a clock a minute or more off is named; 12 s is not")
        #expect(status.devices.first { $0.id == "behind" }?.clockOffsetSeconds == -3_700)
        #expect(status.device.id == Self.me && status.device.lastChangeAt == Date(timeIntervalSince1970: 10_000))
        #expect(status.conflicts == ["a", "b"])
        #expect(status.seen == ["behind": Self.at(50, "behind")], "what this device records: the others' newest changes it has")
        #expect(status.behind(moreThan: 3_001).map(\.id) == ["behind"])
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
        let status = SyncStatusUseCase(folder: folder, devices: FixedDevices(this: Self.me), clock: ManualClock())
        _ = try status.execute(recording: false)
        #expect(folder.recorded.withLock { $0 }.isEmpty, "doctor's survey writes nothing")
        _ = try status.execute()
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
