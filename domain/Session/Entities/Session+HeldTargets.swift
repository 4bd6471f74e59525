import RetimeGroup

/// A strict session's block never loses a target before its end, on any
/// device: its targets as it started are kept with it (`heldTargets`), and
/// its block is always raised with them as well as its group's targets now.
/// A device that has not seen the session (a data folder shared with
/// another machine, synced late) may still unblock its group's targets or
/// rename it; the merge takes that edit in everywhere, but the block
/// holds (docs/storage.md, "A strict session's targets").
extension Session {
    /// The targets its block is raised with: `groupTargets` (its group's now,
    /// in their order), then those it holds that the group no longer has.
    public func blockTargets(_ groupTargets: [Target]) -> [Target] {
        guard let held = heldTargets, !held.isEmpty else { return groupTargets }
        let present = Set(groupTargets)
        return groupTargets + held.filter { !present.contains($0) }
    }

    /// The session holding `targets` to its end, when it is strict.
    public func holding(_ targets: [Target]) -> Session {
        guard strict else { return self }
        var next = self
        next.heldTargets = targets
        return next
    }

    /// The strict session holding also what strict `other` holds: of two
    /// started at once on two devices, the one that goes on keeps the
    /// other's targets blocked (`ConcurrentStarts`).
    func holdingAlso(_ other: Session) -> Session {
        guard strict, other.strict, let theirs = other.heldTargets else { return self }
        let mine = heldTargets ?? []
        let added = theirs.filter { !mine.contains($0) }
        return added.isEmpty ? self : holding(mine + added)
    }

    /// The session no longer holding `targets` (its passcode released them:
    /// `group unblock` went ahead here); nil when it holds none of them.
    public func releasing(_ targets: [Target]) -> Session? {
        guard let held = heldTargets, held.contains(where: targets.contains) else { return nil }
        var next = self
        next.heldTargets = held.filter { !targets.contains($0) }
        return next
    }
}
