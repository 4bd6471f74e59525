import RetimeGroup

/// A session as a session use case (start, stop, pause, resume) leaves it,
/// with what its caller shows beside it, so that no caller reads the
/// group again: the group's name now (nil once the group is deleted) and,
/// for a start, the targets its block was raised on.
public struct SessionReceipt: Sendable, Equatable {
    public var session: Session
    public var groupName: String?
    /// The targets blocked by the start; nil for the other use cases.
    public var targets: [Target]?
    /// What the session's shield blocks of them (apps asked only when the
    /// targets hold an app); nil where no block was raised or lifted.
    public var reach: ShieldReach?

    public init(session: Session, groupName: String?, targets: [Target]? = nil, reach: ShieldReach? = nil) {
        self.session = session
        self.groupName = groupName
        self.targets = targets
        self.reach = reach
    }
}
