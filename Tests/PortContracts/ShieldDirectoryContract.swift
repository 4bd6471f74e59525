import Domain
import Foundation

/// The rules every `ShieldDirectory` keeps: the shield a new block uses is
/// found again by the identity a session records, and a session's block
/// is lowered through that shield whatever the configuration says later.
public enum ShieldDirectoryContract {
    public typealias Factory = @Sendable () async throws -> any ShieldDirectory

    public static let checks: [ContractCheck<Factory>] = [
        ContractCheck("the configured shield is found again by its identity, and holds what it raised") { make in
            let directory = try await make()
            let configured = try directory.configured()
            let again = try directory.shield(identity: configured.identity)
            try requireEqual(again.identity, configured.identity, "identity found again")
            let session = SessionID()
            try await configured.raise([try Target(parsing: "example.com")], for: session)
            try requireEqual(try await again.state()?.session, session, "the block, seen through the shield found again")
            try await again.lower(for: session)
            try require(try await configured.state() == nil, "lowered through the shield found again")
        },
        ContractCheck("a session that recorded the shield's identity is given that shield") { make in
            let directory = try await make()
            let configured = try directory.configured()
            let session = Session(groupId: GroupID(), startedAt: Fixtures.instant(0), plannedEnd: nil, shield: configured.identity)
            try requireEqual(try directory.shield(of: session).identity, configured.identity, "the session's shield")
        },
    ]
}
