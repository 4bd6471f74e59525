/// Where use cases find shields: the one the configuration names now (for
/// a new block), and the one a session recorded (for its block). The
/// configuration is read at each call, so a long-running process (the
/// daemon) follows `retime config set shield` without a restart.
public protocol ShieldDirectory: Sendable {
    /// The shield the configuration names now.
    func configured() throws -> any Shield
    /// The shield with `identity` (as `Shield.identity` gave it).
    func shield(identity: String) throws -> any Shield
}

extension ShieldDirectory {
    /// The shield that raised `session`'s block; for a session that does not
    /// say (one recorded before sessions named their shield), the configured one.
    public func shield(of session: Session) throws -> any Shield {
        guard let identity = session.shield else { return try configured() }
        return try shield(identity: identity)
    }
}
