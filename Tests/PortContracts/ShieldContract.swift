import Domain

/// The rules every `Shield` keeps: one block at a time, owned by a session.
public enum ShieldContract {
    public typealias Factory = @Sendable () async throws -> any Shield

    static let targets = ["example.com", "news.example.org", "xn--bcher-kva.de", "app:slack"].map { try! Target(parsing: $0) }

    public static let checks: [ContractCheck<Factory>] = [
        ContractCheck("a new shield blocks nothing") { make in
            try require(try await make().state() == nil, "state() of a new shield")
        },
        ContractCheck("raise blocks exactly the targets, for the session") { make in
            let shield = try await make()
            let session = SessionID()
            try await shield.raise(targets, for: session)
            let state = try await shield.state()
            try requireEqual(state?.session, session, "owner")
            try requireEqual(Set(state?.targets ?? []), Set(targets), "targets")
        },
        ContractCheck("raising again replaces the block") { make in
            let shield = try await make()
            let (first, second) = (SessionID(), SessionID())
            try await shield.raise(targets, for: first)
            try await shield.raise([targets[0]], for: second)
            let state = try await shield.state()
            try requireEqual(state.map { ShieldState(session: $0.session, targets: $0.targets, released: $0.released) },
                             ShieldState(session: second, targets: [targets[0]]), "state")
            // A raise by the session's id alone carries no strict terms.
            try require(state?.strict != true, "strict: \(String(describing: state))")
        },
        ContractCheck("lower lifts the block of its session") { make in
            let shield = try await make()
            let session = SessionID()
            try await shield.raise(targets, for: session)
            try await shield.lower(for: session)
            try require(try await shield.state() == nil, "state after lower")
        },
        ContractCheck("lower for another session leaves the block up") { make in
            let shield = try await make()
            let session = SessionID()
            try await shield.raise(targets, for: session)
            try await shield.lower(for: SessionID())
            try requireEqual(try await shield.state()?.session, session, "owner after a stranger's lower")
        },
        ContractCheck("lowering when nothing is raised is harmless, and so is lowering twice") { make in
            let shield = try await make()
            let session = SessionID()
            try await shield.lower(for: session)
            try await shield.raise(targets, for: session)
            try await shield.lower(for: session)
            try await shield.lower(for: session)
            try require(try await shield.state() == nil, "state")
        },
        ContractCheck("allow lowers the block of its session and returns no end, or a shield that counts allowances itself refuses one it knows none of and keeps the block up") { make in
            let shield = try await make()
            let session = SessionID()
            try await shield.raise(targets, for: session)
            do {
                let until = try await shield.allow(for: session, length: 60, daily: 600)
                try require(until == nil, "a shield that counts nothing returns no end")
                try require(try await shield.state() == nil, "state after allow")
            } catch {
                try requireEqual(try await shield.state()?.session, session, "the block after a refused allow")
            }
        },
        ContractCheck("an unlock countdown of a block that is not strict is none, its withdrawal harmless, and lower with text typed back lowers") { make in
            let shield = try await make()
            let session = SessionID()
            try await shield.raise(targets, for: session)
            try require(try await shield.requestUnlock(for: session) == nil, "a countdown for a block that is not strict")
            try await shield.withdrawUnlock(for: session)
            try await shield.withdrawUnlock(for: SessionID())
            try requireEqual(try await shield.state()?.session, session, "owner after a withdrawal")
            try await shield.lower(for: session, passcode: nil, typed: 16)
            try require(try await shield.state() == nil, "state after lower")
        },
        ContractCheck("an empty block can be raised and reads back empty") { make in
            let shield = try await make()
            let session = SessionID()
            try await shield.raise([], for: session)
            let state = try await shield.state()
            try require(state == nil || (state?.session == session && state?.targets == [] && state?.strict != true),
                        "state: \(String(describing: state))")
        },
    ]
}
