import Adapters
import Domain
import Foundation
import PortContracts
import Testing

@Suite("Auth use cases")
struct AuthUseCaseTests {
    let world = AuthWorld()

    @Test("set, verify, change and remove a passcode; only its hash is stored")
    func lifecycle() async throws {
        try await world.set.execute(Passcode("1234"))
        let stored = try #require(try await world.state.state().passcodeHash)
        #expect(!stored.contains("1234"))
        #expect(await world.attempt("1234") == nil)
        try await world.change.change(from: Passcode("1234"), to: Passcode("abcd"))
        #expect(await world.attempt("1234") != nil)
        #expect(await world.attempt("abcd") == nil)
        try await world.change.remove(Passcode("abcd"))
        #expect(try await world.status.execute().passcodeSet == false)
        #expect(await world.attempt("abcd") == .passcodeNotSet)
    }

    @Test("a second set, a wrong current passcode and a bad new one are refused")
    func refusals() async throws {
        try await world.set.execute(Passcode("1234"))
        await #expect(throws: AuthError.passcodeAlreadySet) { try await world.set.execute(Passcode("5678")) }
        await #expect(throws: AuthError.self) { try await world.change.change(from: Passcode("0000"), to: Passcode("5678")) }
        await #expect(throws: AuthError.self) { try await world.change.remove(Passcode("0000")) }
        for bad in ["", "123", String(repeating: "x", count: 257), "12\u{7}4"] {
            await #expect(throws: AuthError.self, "\(bad.count) characters") { try await world.change.change(from: Passcode("1234"), to: Passcode(bad)) }
        }
        #expect(await world.attempt("1234") == nil, "the passcode is unchanged")
    }

    @Test("no passcode can be set during a strict session (it would open a way out)")
    func noSetDuringStrict() async throws {
        let until = world.clock.now().addingTimeInterval(3_600)
        let strictWorld = AuthWorld(clock: world.clock, strict: NoStrictSession(until: until))
        await #expect(throws: AuthError.strictSession(until: until)) { try await strictWorld.set.execute(Passcode("1234")) }
        #expect(try await strictWorld.state.state().passcodeHash == nil)
    }

    @Test("a set refused (already set, or a strict session) costs no hash: the slow part comes after the cheap refusals")
    func refusedSetHashesNothing() async throws {
        try await world.set.execute(Passcode("1234"))
        let made = world.hasher.hashes
        for _ in 0..<20 { await #expect(throws: AuthError.passcodeAlreadySet) { try await world.set.execute(Passcode("5678")) } }
        #expect(world.hasher.hashes == made, "already set: refused before hashing")
        let strictWorld = AuthWorld(clock: world.clock, strict: NoStrictSession(until: world.clock.now().addingTimeInterval(60)))
        await #expect(throws: AuthError.self) { try await strictWorld.set.execute(Passcode("1234")) }
        #expect(strictWorld.hasher.hashes == 0, "strict: refused before hashing")
    }

    @Test("5 wrong passcodes lock out for 60 s; a right one is refused until then; each further failure doubles the lock")
    func lockout() async throws {
        try await world.set.execute(Passcode("1234"))
        for attempt in 1...4 {
            #expect(await world.attempt("0000") == .wrongPasscode(attemptsLeft: 5 - attempt, lockedUntil: nil))
        }
        let start = world.clock.now()
        #expect(await world.attempt("0000") == .wrongPasscode(attemptsLeft: 0, lockedUntil: start.addingTimeInterval(60)))
        #expect(await world.attempt("1234") == .lockedOut(until: start.addingTimeInterval(60)))
        world.clock.advance(by: 59.9)
        #expect(await world.attempt("1234") == .lockedOut(until: start.addingTimeInterval(60)))
        world.clock.advance(by: 0.1)
        #expect(try await world.status.execute().lockedUntil == nil, "the lock has run out")
        // The sixth failure in a row locks for 120 s, the seventh for 240 s.
        #expect(await world.attempt("0000") == .wrongPasscode(attemptsLeft: 0, lockedUntil: world.clock.now().addingTimeInterval(120)))
        world.clock.advance(by: 120)
        #expect(await world.attempt("0000") == .wrongPasscode(attemptsLeft: 0, lockedUntil: world.clock.now().addingTimeInterval(240)))
        world.clock.advance(by: 240)
        #expect(await world.attempt("1234") == nil)
        let status = try await world.status.execute()
        #expect(status.failedAttempts == 0 && status.lockedUntil == nil, "a right passcode clears the run")
    }

    @Test("attempts during a lockout do not lengthen it")
    func lockedAttemptsDoNotCount() async throws {
        try await world.set.execute(Passcode("1234"))
        for _ in 1...5 { _ = await world.attempt("0000") }
        for _ in 1...10 { _ = await world.attempt("0000") }
        #expect(try await world.status.execute().failedAttempts == 5)
    }

    @Test("every attempt is audited with its outcome, never the passcode")
    func audit() async throws {
        try await world.set.execute(Passcode("secret-1"))
        _ = await world.attempt(nil, action: "stop")
        _ = await world.attempt("wrong-1", action: "pause")
        _ = await world.attempt("secret-1", action: "group.unblock")
        let entries = try await world.audit.entries()
        #expect(entries.map(\.action) == ["set-passcode", "stop", "pause", "group.unblock"])
        #expect(entries.map(\.success) == [true, false, false, true])
        #expect(entries.map(\.reason) == [nil, "passcodeRequired", "wrongPasscode", nil])
        let text = String(describing: entries) + String(describing: Passcode("secret-1"))
        #expect(!text.contains("secret-1") && !text.contains("wrong-1"))
    }

    @Test("the override lets the right passcode through; with none set the refusal stands")
    func override() async throws {
        struct Refusal: Error, Equatable {}
        await #expect(throws: Refusal()) { try await world.override.authorize("stop", passcode: Passcode("1234"), otherwise: Refusal()) }
        try await world.set.execute(Passcode("1234"))
        await #expect(throws: AuthError.passcodeRequired) { try await world.override.authorize("stop", passcode: nil, otherwise: Refusal()) }
        await #expect(throws: AuthError.self) { try await world.override.authorize("stop", passcode: Passcode("9999"), otherwise: Refusal()) }
        try await world.override.authorize("stop", passcode: Passcode("1234"), otherwise: Refusal())
    }

    @Test("auth request keeps the shield's answer")
    func request() async throws {
        struct Probe: ShieldAuthorizationProbe {
            let answer: ShieldAuthorization
            func authorization() async -> ShieldAuthorization { answer }
        }
        #expect(try await world.status.execute().shieldAuthorization == .notDetermined)
        let denied = try await RequestShieldAuthorizationUseCase(state: world.state, probe: Probe(answer: .denied), clock: world.clock).execute()
        #expect(denied.shieldAuthorization == .denied && !denied.passcodeSet && denied.failedAttempts == 0)
        #expect(try await world.status.execute().shieldAuthorization == .denied)
        _ = try await RequestShieldAuthorizationUseCase(state: world.state, probe: Probe(answer: .approved), clock: world.clock).execute()
        #expect(try await world.status.execute().shieldAuthorization == .approved)
    }

    @Test("every error has a code in its context, an exit family and a description")
    func errors() {
        let errors: [AuthError] = [.passcodeRequired, .wrongPasscode(attemptsLeft: 2, lockedUntil: nil),
                                   .wrongPasscode(attemptsLeft: 0, lockedUntil: Date()), .lockedOut(until: Date()),
                                   .passcodeNotSet, .passcodeAlreadySet, .invalidPasscode(reason: "r"),
                                   .strictSession(until: Date()), .hashingFailed("x")]
        for error in errors {
            #expect(error.code.hasPrefix("auth."))
            #expect(!error.description.isEmpty)
        }
        #expect([AuthError.passcodeRequired, .lockedOut(until: Date()), .wrongPasscode(attemptsLeft: 1, lockedUntil: nil)]
            .allSatisfy { $0.kind == .authorization })
    }
}
