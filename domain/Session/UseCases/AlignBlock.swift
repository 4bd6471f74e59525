import RetimeGroup

/// What `ActiveSession.align` may change, for whom.
public enum AlignMode: Sendable {
    /// Reconcile: raise a running session's block that is down or another's;
    /// never lower. Shield failures are the session's (`shieldFailed`).
    case raisingIfDown
    /// The daemon's refresh: raise the running session's block again with
    /// its group's current targets; lift a block no running session owns.
    case refreshing
    /// `doctor`: find, change nothing.
    case inspecting
    /// `doctor --repair`: raise a block that is down, lift a stale one.
    case repairing
}

/// What `ActiveSession.align` found, and what it did about it.
public struct Aligned: Sendable {
    public let found: BlockAlignment
    /// The targets it raised, if it raised the block.
    public var raised: [Target]? = nil
    /// The session whose block it lifted, if it lifted one.
    public var lowered: SessionID? = nil
}

extension ActiveSession {
    /// The one routine that brings the block in line with the session in
    /// the slot (`BlockAlignment` is the comparison): reconcile, `doctor`
    /// and the daemon's refresh each call it in their `mode`.
    /// `vetting`: asked of a session before its block is raised in
    /// `raisingIfDown` mode; false leaves it down (a session that has ended
    /// elsewhere, come back in an old copy of a file).
    public static func align(_ current: Session?, through shield: any Shield, groups: any SessionGroupLookup,
                             _ mode: AlignMode, vetting: ((Session) async throws -> Bool)? = nil) async throws -> Aligned {
        func targets(of session: Session) async throws -> [Target] {
            session.blockTargets(try await groups.blockList(id: session.groupId)?.targets ?? [])
        }
        switch mode {
        case .raisingIfDown:
            var block: ShieldState?
            try await shield.guarded { block = try await $0.state() }
            var aligned = Aligned(found: BlockAlignment(block: block, session: current))
            guard let session = aligned.found.needingRaise else { return aligned }
            if let vetting, try await !vetting(session) { return aligned }
            let targets = try await targets(of: session)
            try await shield.guarded { try await $0.raise(targets, for: session) }
            aligned.raised = targets
            return aligned
        case .refreshing:
            guard let session = current, session.isActive, !session.blockIsLifted else {
                // No session runs unpaused, so any block up now is stale.
                let block = try await shield.state()
                var aligned = Aligned(found: BlockAlignment(block: block, session: current))
                if let stale = block {
                    try await shield.guarded { try await $0.lower(for: stale.session) }
                    aligned.lowered = stale.session
                }
                return aligned
            }
            // A block that cannot be read is raised again all the same.
            var aligned = Aligned(found: BlockAlignment(block: (try? await shield.state()) ?? nil, session: session))
            // Root released this session's block: it stays down to the end.
            if case .released = aligned.found { return aligned }
            let targets = try await targets(of: session)
            try await shield.guarded { try await $0.raise(targets, for: session) }
            aligned.raised = targets
            return aligned
        case .inspecting, .repairing:
            var aligned = Aligned(found: BlockAlignment(block: try await shield.state(), session: current))
            guard mode == .repairing else { return aligned }
            switch aligned.found {
            case .down(let session):
                let targets = try await targets(of: session)
                try await shield.raise(targets, for: session)
                aligned.raised = targets
            case .stale(let block, _):
                try await shield.lower(for: block.session)
                aligned.lowered = block.session
            case .up(let session, let block) where block.isHeldLoosely(for: session):
                // Raised again with the session's terms: the service takes
                // the stricter ones.
                let targets = try await targets(of: session)
                try await shield.raise(targets, for: session)
                aligned.raised = targets
            case .clear, .onBreak, .up, .released:
                break
            }
            return aligned
        }
    }
}

extension BlockAlignment {
    /// The running, unpaused session whose block is not up: none is, or
    /// another session's is, or the shield holds it loosely though the
    /// session is strict (its id raised before this device raised it: the
    /// shield takes the stricter terms of the raise).
    var needingRaise: Session? {
        switch self {
        case .down(let session): session
        case .up(let session, let block) where block.isHeldLoosely(for: session): session
        case .stale(_, let running?) where !running.blockIsLifted: running
        case .clear, .onBreak, .up, .released, .stale: nil
        }
    }
}
