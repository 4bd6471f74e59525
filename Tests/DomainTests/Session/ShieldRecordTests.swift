import Adapters
import Domain
import Foundation
import Testing

/// A session's block is lowered through the shield that raised it: the
/// configuration may name another by then (semantics.md; cli.md, "Config
/// key shield").
@Suite("The shield a session records")
struct ShieldRecordTests {
    /// A shield with a name of its own, over the in-memory spy.
    struct NamedShield: Shield {
        let identity: String
        let inner = InMemoryShield()
        func raise(_ targets: [Target], for session: SessionID) async throws { try await inner.raise(targets, for: session) }
        func lower(for session: SessionID) async throws { try await inner.lower(for: session) }
        func state() async throws -> ShieldState? { try await inner.state() }
        func reach(askingAboutApps: Bool) async -> ShieldReach { await inner.reach(askingAboutApps: askingAboutApps) }
    }

    /// Two shields, and a setting that says which one new blocks use.
    final class Switchboard: ShieldDirectory, @unchecked Sendable {
        let first = NamedShield(identity: "first"), second = NamedShield(identity: "second")
        var setting = "first"
        func configured() throws -> any Shield { try shield(identity: setting) }
        func shield(identity: String) throws -> any Shield { identity == "first" ? first : second }
    }

    @Test("start records the configured shield; stop lowers through it after the setting changed; the next start uses the new one")
    func recordedShield() async throws {
        let board = Switchboard()
        let world = try await SessionWorld(shields: board)
        let session = try await world.startWork()
        #expect(session.shield == "first")
        #expect(try await board.first.state()?.session == session.id)
        board.setting = "second"
        _ = try await world.stop.execute()
        #expect(try await board.first.state() == nil, "lowered through the shield that raised it")
        #expect(board.second.inner.operations.isEmpty)
        let next = try await world.startWork()
        #expect(next.shield == "second")
        #expect(try await board.second.state()?.session == next.id)
    }
}
