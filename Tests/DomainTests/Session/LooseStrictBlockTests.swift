import Adapters
import Domain
import Foundation
import Synchronization
import Testing

/// A strict session whose block the shield holds loosely (its id raised
/// before this device raised it, by a service from before blocks only
/// tightened): `doctor` says so and repairs it, and any command raises it
/// again with the session's terms (semantics.md, "Service, second pass").
@Suite("A strict session's block held loosely")
struct LooseStrictBlockTests {
    /// A shield that keeps terms as the system service does: each block
    /// held strict or not, a raise taking the stricter.
    final class TermsShield: Shield {
        private let held = Mutex<ShieldState?>(nil)
        private let raises = Mutex(0)
        var identity: String { "system:test" }
        var raised: Int { raises.withLock { $0 } }
        var strict: Bool? { held.withLock { $0?.strict } }

        /// The user's own early raise of `session`'s id, loosely.
        func preRaise(_ session: SessionID) { held.withLock { $0 = ShieldState(session: session, targets: [], strict: false) } }

        func raise(_ targets: [Target], for session: SessionID) async throws { take(targets, session, strict: false) }
        func raise(_ targets: [Target], for session: Session) async throws { take(targets, session.id, strict: session.strict) }
        private func take(_ targets: [Target], _ session: SessionID, strict: Bool) {
            raises.withLock { $0 += 1 }
            held.withLock { state in
                let was = state?.session == session ? state?.strict == true : false
                state = ShieldState(session: session, targets: targets, strict: was || strict)
            }
        }
        func lower(for session: SessionID) async throws { held.withLock { if $0?.session == session { $0 = nil } } }
        func state() async throws -> ShieldState? { held.withLock { $0 } }
        func reach(askingAboutApps: Bool) async -> ShieldReach { ShieldReach(sites: true, apps: nil) }
    }

    let shield = TermsShield()
    let world: SessionWorld

    init() async throws { world = try await SessionWorld(shield: shield) }

    var check: CheckBlocksUseCase {
        CheckBlocksUseCase(groups: GroupRepositoryLookup(groups: world.groups), shields: FixedShieldDirectory(shield))
    }

    @Test("doctor flags it as an error, and --repair raises it strict")
    func doctor() async throws {
        let session = try await world.startWork(strict: true)
        shield.preRaise(session.id)
        let found = await check.execute(.success(try await world.sessions.current()), repairing: false)
        #expect(found.status == .error && found.detail.contains("not strict"), "\(found)")
        let repaired = await check.execute(.success(try await world.sessions.current()), repairing: true)
        #expect(repaired.status == .repaired, "\(repaired)")
        #expect(shield.strict == true)
        let after = await check.execute(.success(try await world.sessions.current()), repairing: false)
        #expect(after.status == .ok, "\(after)")
    }

    @Test("the next command raises it again with the session's terms")
    func nextCommand() async throws {
        let session = try await world.startWork(strict: true)
        shield.preRaise(session.id)
        _ = try await world.status.execute()
        #expect(shield.strict == true, "status raised it strict")
    }

    @Test("a session that is not strict is not raised again by every command")
    func looseSession() async throws {
        _ = try await world.startWork(strict: false)
        let raises = shield.raised
        _ = try await world.status.execute()
        #expect(shield.raised == raises && shield.strict == false)
    }
}
