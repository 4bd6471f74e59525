import RetimeShared
import RetimeSync

/// The active session with its elapsed, focused and remaining time, after
/// completing it if its planned end has passed.
/// With `groups` and `shields`, it also names the group and the shield;
/// with `devices`, the device the session was started on.
public struct SessionStatusUseCase: Sendable {
    private let sessions: any SessionRepository
    private let active: ActiveSession
    private let groups: (any SessionGroupLookup)?
    private let shields: (any ShieldDirectory)?
    private let devices: (any DeviceDirectory)?
    private let book: AllowanceBook?

    public init(sessions: any SessionRepository, active: ActiveSession,
                groups: (any SessionGroupLookup)? = nil, shields: (any ShieldDirectory)? = nil, devices: (any DeviceDirectory)? = nil,
                book: AllowanceBook? = nil) {
        self.book = book
        self.sessions = sessions
        self.active = active
        self.groups = groups
        self.shields = shields
        self.devices = devices
    }

    /// Nil when no session is active.
    public func execute() async throws -> SessionStatus? {
        let reconciled = try await active.reconcile()
        guard let current = try await active.current(after: reconciled), current.isActive else { return nil }
        // Judged, and shown, on its own device's clock where this one
        // disagrees with it (`SessionClocks`).
        let clock = active.clocks.clock(for: current)
        var status = SessionStatus(session: current, at: clock.now(), boot: clock.bootTime())
        status.clockOffset = active.clocks.offset(of: current)
        status.groupName = try await groups?.groupName(id: current.groupId)
        if let devices, let device = current.device {
            status.deviceName = devices.name(of: device)
            // An id that cannot be read is no proof the session is another
            // device's: only a readable, different id says so.
            status.startedElsewhere = (try? devices.thisDevice()).map { $0 != device } ?? false
        }
        if let shield = try shields?.shield(of: current) {
            status.shieldKind = shield.kind
            // Reconcile leaves a released block down; the user must hear why.
            if let block = try? await active.block(of: current, through: shield, after: reconciled), block.session == current.id {
                status.blockReleased = block.released
            }
            // A system shield that blocks nothing is a service root removed
            // (its state was just asked, so this costs no request).
            if shield.kind == "system" { status.serviceRemoved = await shield.reach(askingAboutApps: false).recordsOnly }
        }
        if let running = current.allowance {
            status.allowanceEndsAt = running.end(at: clock.now(), boot: clock.bootTime())
            var allowance = current.dailyAllowance
            if allowance == nil { allowance = try await groups?.blockList(id: current.groupId)?.allowance }
            if let book, let allowance {
                status.allowanceLeftToday = try await book.standing(of: current.groupId, allowance: allowance).left
            }
        }
        return status
    }
}
