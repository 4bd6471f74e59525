import Adapters
import Domain
import Foundation
import JSONDocument
import PortContracts
import Testing

/// The passcode is every device's (issue 31): two devices as two ids over
/// one data folder, set on one and checked on the other, changed and
/// removed anywhere, ordered by the hybrid clock, never by a fast clock;
/// what a sync tool leaves half-written is never taken for it.
@Suite struct SharedPasscodeTests {
    static let laptop = "aaaaaaaa-0000-4000-8000-000000000001"
    static let desktop = "bbbbbbbb-0000-4000-8000-000000000002"

    static func pair() -> (PasscodeDevice, PasscodeDevice) {
        let root = TemporaryDirectory().file("data")
        return (PasscodeDevice(root: root, id: laptop), PasscodeDevice(root: root, id: desktop))
    }

    @Test(arguments: AuthStateStoreContract.checks)
    func contract(_ check: ContractCheck<AuthStateStoreContract.Factory>) async throws {
        try await check.run { PasscodeDevice(root: TemporaryDirectory().file("data"), id: Self.laptop).state }
    }

    @Test func setOnOneDeviceIsCheckedOnTheOther() async throws {
        let (laptop, desktop) = Self.pair()
        try await laptop.set("quokka")
        #expect(try await desktop.state.state().isPasscodeSet)
        #expect(await desktop.check("quokka") == nil)
        #expect(await desktop.check("wombat")?.code == "auth.wrongPasscode")
        // The other device may not set one over it.
        await #expect(throws: AuthError.self) { try await desktop.set("wombat") }
        let origin = try await desktop.state.passcodeOrigin()
        #expect(origin?.device == Self.laptop && origin?.isThisDevice == false)
        #expect(try await laptop.state.passcodeOrigin()?.isThisDevice == true)
        // Only the laptop's file holds it; the desktop wrote none.
        #expect(FileManager.default.fileExists(atPath: laptop.ownFile))
        #expect(!FileManager.default.fileExists(atPath: desktop.ownFile))
    }

    @Test func aChangeOnOneDeviceRefusesTheOldPasscodeOnTheOtherAndLeavesNoOldHash() async throws {
        let (laptop, desktop) = Self.pair()
        try await laptop.set("quokka")
        let oldHash = try #require(try await laptop.state.state().passcodeHash)
        try await desktop.changer.change(from: Passcode("quokka"), to: Passcode("wombat"))
        #expect(await laptop.check("quokka")?.code == "auth.wrongPasscode")
        #expect(await laptop.check("wombat") == nil)
        #expect(try await laptop.state.passcodeOrigin()?.device == Self.desktop)
        // The laptop's next check took the hash out of its superseded
        // record: the old hash is nowhere on disk.
        #expect(try String(contentsOfFile: laptop.ownFile, encoding: .utf8).contains("\"hash\" : null"))
        let holding = laptop.everyFile().filter { $0.value.contains(oldHash) }.map(\.key)
        #expect(holding.isEmpty, "the old hash is still in \(holding)")
    }

    @Test func removedOnOneDeviceTheOtherNeedsNone() async throws {
        let (laptop, desktop) = Self.pair()
        try await laptop.set("quokka")
        let oldHash = try #require(try await laptop.state.state().passcodeHash)
        #expect(await desktop.check("quokka") == nil)
        try await laptop.changer.remove(Passcode("quokka"))
        #expect(try await desktop.state.state().isPasscodeSet == false)
        #expect(await desktop.check("quokka")?.code == "auth.passcodeNotSet")
        #expect(laptop.everyFile().filter { $0.value.contains(oldHash) }.isEmpty, "a removed hash stays on disk")
        // A new one may be set anywhere, without the old.
        try await desktop.set("numbat")
        #expect(await laptop.check("numbat") == nil)
    }

    @Test func theLockoutStaysWithTheMachine() async throws {
        let (laptop, desktop) = Self.pair()
        try await laptop.set("quokka")
        for _ in 0..<Lockout.freeAttempts { _ = await laptop.check("0000") }
        #expect(await laptop.check("quokka")?.code == "auth.lockedOut")
        #expect(try await desktop.state.state().failedAttempts == 0)
        #expect(await desktop.check("quokka") == nil)
    }

    /// A year-fast laptop and a desktop each set a passcode before either
    /// saw the other's (two copies of the folder, as a sync tool keeps
    /// them); copied across, both take the laptop's, the later reading.
    /// The desktop's change after it saw that one wins, though its wall
    /// clock is a year behind.
    @Test func concurrentSetsAreOrderedByTheHybridClockNotAFastWallClock() async throws {
        let year: TimeInterval = 365 * 86_400
        let laptop = PasscodeDevice(root: TemporaryDirectory().file("a"), id: Self.laptop, now: { Date().addingTimeInterval(year) })
        let desktopRoot = TemporaryDirectory().file("b")
        let desktop = PasscodeDevice(root: desktopRoot, id: Self.desktop)
        try await desktop.set("wombat")
        try await laptop.set("quokka")
        func copy(_ from: PasscodeDevice, into root: String) throws {
            let folder = root + "/devices/\(from.id)"
            try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
            try? FileManager.default.removeItem(atPath: folder + "/passcode.json")
            try FileManager.default.copyItem(atPath: from.ownFile, toPath: folder + "/passcode.json")
        }
        try copy(laptop, into: desktopRoot)
        try copy(desktop, into: laptop.root)
        for device in [laptop, desktop] {
            #expect(await device.check("quokka") == nil, "\(device.id)")
            #expect(await device.check("wombat")?.code == "auth.wrongPasscode", "\(device.id)")
        }
        try await desktop.changer.change(from: Passcode("quokka"), to: Passcode("numbat"))
        try copy(desktop, into: laptop.root)
        #expect(await laptop.check("numbat") == nil)
        #expect(await laptop.check("quokka")?.code == "auth.wrongPasscode")
    }

    @Test func aHalfCopiedOrDamagedFileIsNeverThePasscodeAndIsNamed() async throws {
        let (laptop, desktop) = Self.pair()
        try await laptop.set("quokka")
        let other = "cccccccc-0000-4000-8000-000000000003"
        let folder = laptop.root + "/devices/\(other)"
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        // A removal stamped far later, but in a sync tool's temporary: not data.
        let removal = "{\"at\":\"9999999999999-0-\(other)\",\"format\":\"retime.passcode\",\"hash\":null,\"version\":1}\n"
        try Data(removal.utf8).write(to: URL(fileURLWithPath: folder + "/.syncthing.passcode.json.tmp"))
        try Data(removal.utf8).write(to: URL(fileURLWithPath: folder + "/~syncthing~passcode.json.tmp"))
        // The record itself half-copied.
        try Data(removal.utf8.prefix(30)).write(to: URL(fileURLWithPath: folder + "/passcode.json"))
        #expect(await desktop.check("quokka") == nil)
        #expect(try await desktop.state.state().isPasscodeSet)
        let survey = try FileSyncFolder(root: laptop.root, deviceID: { Self.desktop }).survey()
        #expect(survey.unreadable == ["devices/\(other)/passcode.json"], "\(survey.unreadable)")
        // Garbage of every kind is passed over the same way.
        for garbage in ["", "\u{0}\u{0}", "{}", "[1,2]", "{\"format\":\"retime.passcode\",\"version\":1,\"at\":\"x\",\"hash\":null}",
                        "{\"format\":\"retime.passcode\",\"version\":1,\"at\":\"1-0-\(other)\",\"hash\":5}"] {
            try Data(garbage.utf8).write(to: URL(fileURLWithPath: folder + "/passcode.json"))
            #expect(await desktop.check("quokka") == nil, "\(garbage)")
        }
    }

    @Test func aConflictCopyIsOneMoreRecordOfItsDevice() async throws {
        let (laptop, desktop) = Self.pair()
        try await laptop.set("quokka")
        // A clone of the laptop removed it meanwhile; the sync tool kept that as a conflict copy.
        let later = "{\"at\":\"\(Int64(Date().timeIntervalSince1970 * 1_000) + 60_000)-0-\(Self.laptop)\",\"format\":\"retime.passcode\",\"hash\":null,\"version\":1}\n"
        try Data(later.utf8).write(to: URL(fileURLWithPath: laptop.root + "/devices/\(Self.laptop)/passcode.sync-conflict-20261124-101010-ABCDEFG.json"))
        #expect(try await desktop.state.state().isPasscodeSet == false)
        #expect(try FileSyncFolder(root: laptop.root, deviceID: { Self.desktop }).survey().conflicts
            == ["devices/\(Self.laptop)/passcode.sync-conflict-20261124-101010-ABCDEFG.json"])
    }
}
