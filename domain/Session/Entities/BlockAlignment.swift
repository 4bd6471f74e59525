/// How the block a shield holds stands against the session that needs it:
/// the one answer to "is the block up the one the session needs?", which
/// reconcile, `doctor` and the daemon's refresh act on (`ActiveSession.align`).
public enum BlockAlignment: Sendable, Equatable {
    /// No block, and no session runs.
    case clear
    /// No block: the running session is on a break.
    case onBreak(Session)
    /// No block, though the running session needs one (a start killed
    /// before it raised it).
    case down(Session)
    /// The running session's block is up.
    case up(Session, ShieldState)
    /// Root released the running session's block (`system release`): it
    /// stays down to the session's end.
    case released(Session, ShieldState)
    /// A block no running session needs now: its session ended (a crash
    /// between the steps of an ending), or is on a break (`running`).
    case stale(ShieldState, running: Session?)

    /// The block against the session in the slot (an ended one runs no more).
    public init(block: ShieldState?, session: Session?) {
        let running = session.flatMap { $0.isActive ? $0 : nil }
        switch (block, running) {
        case (nil, nil): self = .clear
        case (nil, let session?) where session.blockIsLifted: self = .onBreak(session)
        case (nil, let session?): self = .down(session)
        case (let block?, let session?) where block.session == session.id && block.released: self = .released(session, block)
        case (let block?, let session?) where block.session == session.id && !session.blockIsLifted: self = .up(session, block)
        case (let block?, let session): self = .stale(block, running: session)
        }
    }

    /// The block the shield holds, as found.
    public var block: ShieldState? {
        switch self {
        case .clear, .onBreak, .down: nil
        case .up(_, let block), .released(_, let block), .stale(let block, _): block
        }
    }
}
