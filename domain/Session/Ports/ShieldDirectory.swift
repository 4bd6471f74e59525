/// Where use cases find shields: the one the configuration names now (for
/// a new block), and the one a session recorded (for its block). The
/// configuration is read at each call, so a long-running process (the
/// daemon) follows `retime config set shield` without a restart.
public protocol ShieldDirectory: Sendable {
    /// The shield the configuration names now.
    func configured() throws -> any Shield
    /// The shield with `identity` (as `Shield.identity` gave it).
    func shield(identity: String) throws -> any Shield
    /// The id of the device these shields guard, when it is known: a
    /// session started on another device of a shared data folder is
    /// blocked here by this machine's own shield.
    var device: String? { get }
}

extension ShieldDirectory {
    public var device: String? { nil }

    /// The shield that raised `session`'s block; for a session that does not
    /// say (one recorded before sessions named their shield), the configured
    /// one; for a session started on another device, this machine's
    /// configured one (the other machine's shield is not this machine's).
    public func shield(of session: Session) throws -> any Shield {
        if let here = device, let there = session.device, here != there { return try configured() }
        guard let identity = session.shield else { return try configured() }
        return try shield(identity: identity)
    }
}
