import RetimeShared

/// Whether the block agrees with the session (`doctor`'s "blocks"): a block
/// whose session is no longer active (a crash between the steps of an
/// ending), or that is up during a break, is lifted on repair; a running
/// session whose block is down (a start killed before it raised it) has it
/// raised.
public struct CheckBlocksUseCase: Sendable {
    private let groups: any SessionGroupLookup
    private let shields: any ShieldDirectory

    public init(groups: any SessionGroupLookup, shields: any ShieldDirectory) {
        self.groups = groups
        self.shields = shields
    }

    /// `current`: the slot as doctor read it, once for all its checks (a
    /// failure to read it is this check's finding).
    public func execute(_ current: Result<Session?, any Error>, repairing: Bool) async -> HealthCheck {
        do { return try await check(try current.get(), repairing: repairing) } catch let error as StoreError where error.isDamage {
            return HealthCheck(name: "blocks", status: .warning, detail: "not checked: the session, shield or config data is damaged")
        } catch {
            // The shield's own file (a hosts file in the way, say) is a
            // finding like any other, not a reason to print no report.
            return HealthCheck(name: "blocks", status: .error, detail: "cannot check or lift the block: \(error)")
        }
    }

    private func check(_ current: Session?, repairing: Bool) async throws -> HealthCheck {
        let shield = try current.map(shields.shield(of:)) ?? shields.configured()
        let aligned = try await ActiveSession.align(current, through: shield, groups: groups, repairing ? .repairing : .inspecting)
        func found(_ status: HealthCheck.Status, _ detail: String) -> HealthCheck { HealthCheck(name: "blocks", status: status, detail: detail) }
        // A system shield that blocks nothing is one whose service root
        // removed (`system uninstall` lifted its blocks): not a block to raise.
        if case .down = aligned.found, shield.kind == "system", await shield.reach(askingAboutApps: false).recordsOnly {
            return found(.warning, "the system service was removed (system uninstall), which lifted the running session's block; "
                                   + "nothing is blocked until the session ends")
        }
        switch aligned.found {
        case .clear:
            return found(.ok, "no session runs and no block is up")
        case .onBreak:
            return found(.ok, "the session is on a break; no block is up")
        case .down:
            guard aligned.raised != nil else {
                return found(.warning, "the running session's block is down (an interrupted start); the next command raises it")
            }
            return found(.repaired, "raised the running session's block")
        case .released:
            return found(.warning, "root released the running session's block; nothing is blocked until the session ends")
        case .up(let session, let block) where block.isHeldLoosely(for: session):
            guard aligned.raised != nil else {
                return found(.error, "the system service holds this strict session's block as not strict, so it can be lowered at will; "
                                     + "`retime doctor --repair` raises it strict")
            }
            return found(.repaired, "raised the strict session's block strict (the system service held it as not strict)")
        case .up:
            let what = shield.kind == "none" ? "recorded (the 'none' shield blocks nothing)" : "up (\(shield.identity))"
            return found(.ok, "the running session's block is \(what)")
        case .stale(let block, let session):
            let why = session?.id == block.session ? "during the session's break" : "for a session that is no longer running"
            guard aligned.lowered != nil else { return found(.warning, "a block is up \(why)") }
            return found(.repaired, "lifted a block that was up \(why)")
        }
    }
}
