import Adapters
import Domain
import Foundation
import JSONDocument
import PortContracts
import Testing

/// A data folder whose machine `auth` suite holds the passcode's hash (an
/// older retime's) keeps working, and its first write moves the hash into
/// the device's shared `passcode.json` losslessly, with the stamp it was
/// read with, so no reader's answer changes.
@Suite struct PasscodeMigrationTests {
    static let laptop = SharedPasscodeTests.laptop
    static let desktop = SharedPasscodeTests.desktop

    /// A folder of the single-device layout with passcode `quokka` set and
    /// two wrong attempts counted; returns its root and the hash.
    static func olderFolder() throws -> (root: String, hash: String) {
        let root = TemporaryDirectory().file("data")
        let hash = try TestPasscodeHasher().hash(Passcode("quokka"))
        let old = JSONFileStore(directory: root + "/store")
        try old.update("auth") { values in
            values["state"] = .object(["passcodeHash": .string(hash), "failedAttempts": .int(2), "shieldAuthorization": .string("approved")])
        }
        return (root, hash)
    }

    @Test func theHashMovesOnTheFirstWriteLosingNothing() async throws {
        let (root, hash) = try Self.olderFolder()
        let laptop = PasscodeDevice(root: root, id: Self.laptop)
        // Before any write: the machine's hash is the passcode here.
        let before = try await laptop.state.state()
        #expect(before.passcodeHash == hash && before.failedAttempts == 2 && before.shieldAuthorization == .approved)
        #expect(!FileManager.default.fileExists(atPath: laptop.ownFile))
        let stampBefore = try #require(try await laptop.state.passcodeOrigin())
        #expect(stampBefore.isThisDevice)

        // The first write (an authorization answer) moves it.
        try await laptop.state.update { $0.shieldAuthorization = .denied }
        let record = try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: laptop.ownFile))) as? [String: Any]
        #expect(record?["hash"] as? String == hash && record?["format"] as? String == "retime.passcode")
        #expect(try await laptop.state.passcodeOrigin()?.at == stampBefore.at, "the move keeps the change's time")
        let after = try await laptop.state.state()
        #expect(after.passcodeHash == hash && after.failedAttempts == 2 && after.shieldAuthorization == .denied)
        // Gone from the machine's suite and its backups.
        let machine = laptop.everyFile().filter { $0.key.contains("/store/") && $0.value.contains(hash) }.map(\.key)
        #expect(machine.isEmpty, "still in \(machine)")
        // Now the other device has it too.
        let desktop = PasscodeDevice(root: root, id: Self.desktop)
        #expect(await desktop.check("quokka") == nil)
        #expect(await laptop.check("quokka") == nil)
    }

    @Test func aHashAnOlderRetimeKeptIsOlderThanALaterChangeElsewhere() async throws {
        let (root, hash) = try Self.olderFolder()
        // The laptop's upgraded retime reads first (its machine files move into its folder).
        let laptop = PasscodeDevice(root: root, id: Self.laptop)
        #expect(try await laptop.state.state().passcodeHash == hash)
        // The desktop sets its own after the laptop's file was written.
        let desktop = PasscodeDevice(root: root, id: Self.desktop, now: { Date().addingTimeInterval(1) })
        try await desktop.set("wombat")
        #expect(await laptop.check("wombat") == nil)
        #expect(await laptop.check("quokka")?.code == "auth.wrongPasscode")
        // The laptop's superseded hash was dropped, not moved.
        #expect(!FileManager.default.fileExists(atPath: laptop.ownFile))
        #expect(try await desktop.state.passcodeOrigin()?.device == Self.desktop)
        #expect(laptop.everyFile().filter { $0.value.contains(hash) }.isEmpty)
    }
}
