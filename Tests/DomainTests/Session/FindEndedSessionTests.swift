import Adapters
import Domain
import Foundation
import PortContracts
import Testing

/// How a user names an ended session: id, prefix of 6+, or @N.
@Suite("Naming an ended session")
struct FindEndedSessionTests {
    static func id(_ text: String) -> SessionID { SessionID(text)! }

    let history = InMemorySessionHistory([
        Fixtures.endedSession(startingAt: 0).withID(id("abcdef01-0000-4000-8000-000000000001")),
        Fixtures.endedSession(startingAt: 1_000).withID(id("abcdef02-0000-4000-8000-000000000002")),
        Fixtures.endedSession(startingAt: 2_000).withID(id("12345678-0000-4000-8000-000000000003")),
    ])

    @Test("@N counts from the newest; a unique prefix or the id finds it; a shared prefix is ambiguous")
    func references() async throws {
        let find = FindEndedSessionUseCase(history: history)
        #expect(try await find.execute(SessionReference(parsing: "@1")).id == Self.id("12345678-0000-4000-8000-000000000003"))
        #expect(try await find.execute(SessionReference(parsing: "@3")).id == Self.id("abcdef01-0000-4000-8000-000000000001"))
        #expect(try await find.execute(SessionReference(parsing: "ABCDEF02")).startedAt == Fixtures.instant(1_000))
        #expect(try await find.execute(SessionReference(parsing: "12345678-0000-4000-8000-000000000003")).startedAt == Fixtures.instant(2_000))
        await #expect(throws: SessionError.ambiguousSession("abcdef", matches: 2)) { try await find.execute(SessionReference(parsing: "abcdef")) }
        await #expect(throws: SessionError.sessionNotFound("@4")) { try await find.execute(SessionReference(parsing: "@4")) }
        await #expect(throws: SessionError.sessionNotFound("fedcba")) { try await find.execute(SessionReference(parsing: "fedcba")) }
    }

    @Test("anything else is not a reference")
    func invalid() {
        for text in ["@0", "@-1", "@x", "abcde", "ghijklmn", "", "@", "abcdef01-0000-4000-8000-00000000000z1"] {
            #expect(throws: SessionError.self, "\(text)") { try SessionReference(parsing: text) }
        }
    }
}
