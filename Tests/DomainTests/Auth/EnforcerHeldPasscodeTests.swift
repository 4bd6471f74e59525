import Adapters
import Domain
import Foundation
import Testing

/// An enforcer built as the system service builds its own: the Auth use
/// cases over a state of its own (another world), so its lockout is real.
struct WorldEnforcer: EnforcerPasscodes {
    let world: AuthWorld

    func passcodeState() async throws -> EnforcerPasscodeState? {
        let state = try await world.state.state()
        return EnforcerPasscodeState(held: state.passcodeHash != nil, failedAttempts: state.failedAttempts,
                                     lockedUntil: state.lockedOut(at: world.clock.now()))
    }
    func set(_ passcode: Passcode) async throws { try await world.set.execute(passcode) }
    func change(from current: Passcode, to new: Passcode) async throws { try await world.change.change(from: current, to: new) }
    func remove(_ current: Passcode) async throws { try await world.change.remove(current) }
    func verify(_ passcode: Passcode, action: String) async throws { try await world.verify.execute(passcode, action: action) }
}

/// Issue 28, item 5: with an enforcer that keeps passcodes, the user's
/// state holds no hash, every check is the enforcer's (its lockout), and a
/// hash an older retime left is dropped at the next check.
@Suite("A passcode the enforcer holds")
struct EnforcerHeldPasscodeTests {
    let user = AuthWorld()
    let service = AuthWorld()
    var enforcer: WorldEnforcer { WorldEnforcer(world: service) }

    var set: SetPasscodeUseCase {
        SetPasscodeUseCase(state: user.state, hasher: user.hasher, audit: user.audit, clock: user.clock, strict: user.strict,
                           dataLock: InMemoryDataLock(), enforcer: enforcer)
    }
    var verify: VerifyPasscodeUseCase {
        VerifyPasscodeUseCase(state: user.state, hasher: user.hasher, audit: user.audit, clock: user.clock, enforcer: enforcer)
    }

    @Test("set leaves no hash in the user's state, only the note; the enforcer holds it")
    func setHeldElsewhere() async throws {
        try await set.execute(Passcode("2468"))
        let state = try await user.state.state()
        #expect(state.passcodeHash == nil && state.passcodeIsWithEnforcer && state.isPasscodeSet)
        #expect(try await service.state.state().passcodeHash != nil)
        #expect(try await AuthStatusUseCase(state: user.state, clock: user.clock, enforcer: enforcer).execute().heldByEnforcer)
    }

    @Test("every check is counted by the enforcer's lockout: five wrong, then the right one is locked out")
    func lockoutIsTheEnforcers() async throws {
        try await set.execute(Passcode("2468"))
        for guess in ["1111", "2222", "3333", "4444", "5555"] {
            await #expect(throws: AuthError.self) { try await verify.execute(Passcode(guess), action: "stop") }
        }
        #expect(try await service.state.state().failedAttempts == 5)
        await #expect(throws: AuthError.lockedOut(until: service.clock.now().addingTimeInterval(60))) {
            try await verify.execute(Passcode("2468"), action: "stop")
        }
        #expect(try await user.audit.entries().filter { !$0.success }.count == 6, "the user's trail records each attempt too")
    }

    @Test("a hash left in the user's state while the enforcer holds one is dropped at the next check, which the enforcer decides")
    func handover() async throws {
        try await enforcer.set(Passcode("service-one"))
        try await user.set.execute(Passcode("local-one"))   // as an older retime left it
        await #expect(throws: AuthError.self) { try await verify.execute(Passcode("local-one"), action: "stop") }
        #expect(try await user.state.state().passcodeHash == nil)
        try await verify.execute(Passcode("service-one"), action: "stop")
    }
}
