import Domain
import Foundation

/// The rules every `PasscodeHasher` keeps.
public enum PasscodeHasherContract {
    public typealias Factory = @Sendable () async throws -> any PasscodeHasher

    public static let checks: [ContractCheck<Factory>] = [
        ContractCheck("a hash verifies the passcode it was made from and no other") { make in
            let hasher = try await make()
            let hash = try hasher.hash(Passcode("correct horse"))
            try require(hasher.verify(Passcode("correct horse"), against: hash), "the right passcode was rejected")
            for wrong in ["correct hors", "correct horse ", "Correct horse", "", "correct horsf"] {
                try require(!hasher.verify(Passcode(wrong), against: hash), "'\(wrong)' was accepted")
            }
        },
        ContractCheck("hashes are salted: the same passcode hashes differently each time") { make in
            let hasher = try await make()
            let first = try hasher.hash(Passcode("1234")), second = try hasher.hash(Passcode("1234"))
            try require(first != second, "two hashes of one passcode are equal")
            try require(hasher.verify(Passcode("1234"), against: first) && hasher.verify(Passcode("1234"), against: second),
                        "each hash verifies")
        },
        ContractCheck("a hash does not contain the passcode") { make in
            let hasher = try await make()
            let passcode = "plain-text-secret"
            try require(!(try hasher.hash(Passcode(passcode))).contains(passcode), "the passcode is readable in its hash")
        },
        ContractCheck("malformed or empty hashes match nothing") { make in
            let hasher = try await make()
            for hash in ["", "*", "*0", "$y$", "not a hash", "$6$", "1234"] {
                try require(!hasher.verify(Passcode("1234"), against: hash), "'\(hash)' matched")
            }
        },
        ContractCheck("unicode passcodes round-trip") { make in
            let hasher = try await make()
            let hash = try hasher.hash(Passcode("pässwörd 🔒"))
            try require(hasher.verify(Passcode("pässwörd 🔒"), against: hash), "unicode passcode rejected")
            try require(!hasher.verify(Passcode("passwort 🔒"), against: hash), "a near miss accepted")
        },
    ]
}

/// The rules every `AuthStateStore` keeps.
public enum AuthStateStoreContract {
    public typealias Factory = @Sendable () async throws -> any AuthStateStore

    public static let checks: [ContractCheck<Factory>] = [
        ContractCheck("a new store holds the empty state") { make in
            try requireEqual(try await make().state(), AuthState(), "initial state")
        },
        ContractCheck("an update is stored whole and returned") { make in
            let store = try await make()
            let state = AuthState(passcodeHash: "$y$j9T$salt$hash", failedAttempts: 3, lockedUntil: Fixtures.instant(60),
                                  shieldAuthorization: .denied)
            let result = try await store.update { current -> Int in
                current = state
                return 7
            }
            try requireEqual(result, 7, "result")
            try requireEqual(try await store.state(), state, "stored state (dates exactly)")
        },
        ContractCheck("a throwing update stores nothing") { make in
            let store = try await make()
            struct Refused: Error {}
            do {
                try await store.update { current in
                    current.failedAttempts = 99
                    throw Refused()
                }
            } catch is Refused {}
            try requireEqual(try await store.state().failedAttempts, 0, "failed attempts after a thrown update")
        },
        ContractCheck("50 concurrent increments lose none") { make in
            let store = try await make()
            try await withThrowingTaskGroup(of: Void.self) { group in
                for _ in 0..<50 { group.addTask { try await store.update { $0.failedAttempts += 1 } } }
                try await group.waitForAll()
            }
            try requireEqual(try await store.state().failedAttempts, 50, "count")
        },
    ]
}

/// The rules every `AuditTrail` keeps.
public enum AuditTrailContract {
    public typealias Factory = @Sendable () async throws -> any AuditTrail

    public static let checks: [ContractCheck<Factory>] = [
        ContractCheck("a new trail is empty") { make in
            try require(try await make().entries().isEmpty, "entries in a new trail")
        },
        ContractCheck("entries come back in order, exactly") { make in
            let trail = try await make()
            let entries = [
                AuditEntry(action: "stop", at: Fixtures.instant(1), success: false, reason: "wrongPasscode"),
                AuditEntry(action: "stop", at: Fixtures.instant(2), success: true),
                AuditEntry(action: "set-passcode", at: Fixtures.instant(3), success: true),
            ]
            for entry in entries { try await trail.append(entry) }
            try requireEqual(try await trail.entries(), entries, "entries")
        },
        ContractCheck("concurrent appends are all kept") { make in
            let trail = try await make()
            try await withThrowingTaskGroup(of: Void.self) { group in
                for index in 0..<40 {
                    group.addTask { try await trail.append(AuditEntry(action: "a\(index)", at: Fixtures.instant(Double(index)), success: true)) }
                }
                try await group.waitForAll()
            }
            try requireEqual(Set(try await trail.entries().map(\.action)), Set((0..<40).map { "a\($0)" }), "actions")
        },
    ]
}
