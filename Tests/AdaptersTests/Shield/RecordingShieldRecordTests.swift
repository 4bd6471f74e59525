import Adapters
import Domain
import Foundation
import JSONDocument
import PortContracts
import Testing

/// The `none` shield's record is written and read by hand: it must be the
/// JSON the `Codable` encoding wrote, and read records that encoding wrote
/// (by older retimes), as it did.
@Suite("The none shield's record, as Codable wrote it")
struct RecordingShieldRecordTests {
    /// The record's shape as `Codable` encoded it.
    struct Written: Codable {
        var session: SessionID
        var targets: [Target]
    }

    static func shield(_ store: InMemoryKeyValueStore) -> RecordingShield {
        RecordingShield(store: store, logger: Logger(label: "t", handler: InMemoryLogHandler()))
    }

    static let targets = try! ["example.com", "app:slack", "news.example.org"].map { try Target(parsing: $0) }

    @Test("a raised block is stored as Codable stored it")
    func writesAsCodable() async throws {
        let store = InMemoryKeyValueStore()
        let session = SessionID()
        try await Self.shield(store).raise(Self.targets, for: session)
        #expect(try store.values(of: RecordingShield.suite)["block"] == JSONValueCoding.encode(Written(session: session, targets: Self.targets)))
    }

    @Test("a record Codable wrote is read, and lowered for its session only; a damaged one is still an error")
    func readsWhatCodableWrote() async throws {
        let store = InMemoryKeyValueStore()
        let session = SessionID()
        let shield = Self.shield(store)
        try store.set(Written(session: session, targets: Self.targets), forKey: "block", in: RecordingShield.suite)
        #expect(try await shield.state() == ShieldState(session: session, targets: Self.targets))
        try await shield.lower(for: SessionID())
        #expect(try await shield.state() != nil, "another session's lowering leaves it")
        try await shield.lower(for: session)
        #expect(try await shield.state() == nil)
        try store.update(RecordingShield.suite) { $0["block"] = .object(["session": .string(session.description), "targets": .array([.int(1)])]) }
        await #expect(throws: StoreError.self) { try await shield.state() }
    }
}
