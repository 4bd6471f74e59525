@testable import Adapters
import Domain
import Foundation
import PortContracts
import Testing

/// The summaries file (`devices/<id>/snapshots/history.summaries`): its
/// port's contract, and whatever befalls the file, no summaries rather
/// than wrong ones.
@Suite("History summaries in a file: the contract, and damage read as none")
struct HistorySummaryStoreFileTests {
    let directory = TemporaryDirectory()

    /// A store in a device folder that exists.
    func store() throws -> (FileHistorySummaryStore, path: String) {
        let folder = directory.file("devices/this")
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        return (FileHistorySummaryStore(deviceFolder: { folder }), folder + "/snapshots/history.summaries")
    }

    static let kept = HistorySummaries(months: ["2025-01": HistorySummaryStoreContract.summary(1, days: 31),
                                                "2025-02": HistorySummaryStoreContract.summary(2)], sharing: ["2025-02"])

    @Test(arguments: HistorySummaryStoreContract.checks)
    func contract(_ check: ContractCheck<HistorySummaryStoreContract.Factory>) async throws {
        let (store, _) = try store()
        try await check.run { store }
    }

    @Test("the file is what it says: written aside and renamed, mode 0600, read back by a new store")
    func roundTrip() async throws {
        let (store, path) = try store()
        await store.keep(Self.kept)
        #expect(try FileManager.default.attributesOfItem(atPath: path)[.posixPermissions] as? Int == 0o600)
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory.file("devices/this/snapshots")) == ["history.summaries"])
        #expect(await FileHistorySummaryStore(deviceFolder: { directory.file("devices/this") }).summaries() == Self.kept)
    }

    @Test("garbage, a file cut short or grown, a changed byte, another version, an empty file: no summaries, and the next keep replaces it")
    func damage() async throws {
        let (store, path) = try store()
        await store.keep(Self.kept)
        let good = try [UInt8](Data(contentsOf: URL(fileURLWithPath: path)))
        var otherVersion = Array(good[..<(good.count - 8)])
        otherVersion[MonthSummaryCoding.magic.count] &+= 1
        let sum = otherVersion.withUnsafeBytes { MonthSummaryCoding.checksum($0) }
        withUnsafeBytes(of: sum.littleEndian) { otherVersion += $0 }
        var flipped = good
        flipped[good.count / 2] ^= 0x10
        let damaged: [(String, [UInt8])] = [
            ("garbage", Array("not a summaries file at all, just text\n".utf8)), ("empty", []),
            ("cut short by a byte", Array(good.dropLast())), ("cut in half", Array(good[..<(good.count / 2)])),
            ("one byte more", good + [0]), ("a byte changed", flipped), ("another version", otherVersion),
            ("NUL bytes", [UInt8](repeating: 0, count: good.count)),
        ]
        for (what, bytes) in damaged {
            try Data(bytes).write(to: URL(fileURLWithPath: path))
            #expect(await store.summaries() == HistorySummaries(), "\(what)")
        }
        await store.keep(Self.kept)
        #expect(await store.summaries() == Self.kept, "kept again over the damage")
    }

    @Test("a directory, a symbolic link or a FIFO where the file should be: no summaries, never a wait")
    func notAFile() async throws {
        let (store, path) = try store()
        await store.keep(Self.kept)
        let elsewhere = directory.file("elsewhere.summaries")
        try FileManager.default.moveItem(atPath: path, toPath: elsewhere)
        try FileManager.default.createSymbolicLink(atPath: path, withDestinationPath: elsewhere)
        #expect(await store.summaries() == HistorySummaries(), "a symbolic link is not followed")
        try FileManager.default.removeItem(atPath: path)
        #expect(mkfifo(path, 0o600) == 0)
        #expect(await store.summaries() == HistorySummaries(), "a FIFO")
        try FileManager.default.removeItem(atPath: path)
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: false)
        #expect(await store.summaries() == HistorySummaries(), "a directory")
    }

    @Test("without this device's folder (a report on data this machine never wrote), nothing is kept and no folder is made")
    func noDeviceFolder() async throws {
        let folder = directory.file("devices/this")
        let store = FileHistorySummaryStore(deviceFolder: { folder })
        await store.keep(Self.kept)
        #expect(!FileManager.default.fileExists(atPath: folder))
        #expect(await store.summaries() == HistorySummaries())
        let unknown = FileHistorySummaryStore(deviceFolder: { nil })
        await unknown.keep(Self.kept)
        #expect(await unknown.summaries() == HistorySummaries())
    }
}
