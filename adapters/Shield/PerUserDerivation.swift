import Domain
import Synchronization

/// What a machine-wide layer works out from each user's targets (its
/// blocked names, the names it resolves), kept per user and worked out
/// again only for a user whose targets changed since the layer was last
/// given the blocks: one user's raise costs its own targets, not every
/// user's. A user's blocks are compared by their targets alone (a
/// block's served time changes at every pass, its targets seldom), and
/// unchanged targets share their storage with the last blocks given, so
/// the comparison is cheap.
final class PerUserDerivation<Value: Sendable>: Sendable {
    private let derive: @Sendable ([[Target]]) -> Value
    private let kept = Mutex<[UInt32: (targets: [[Target]], value: Value)]>([:])

    /// `derive`: the value of one user's blocks' targets, block by block.
    init(_ derive: @escaping @Sendable ([[Target]]) -> Value) {
        self.derive = derive
    }

    /// The value of each user who holds a block among `blocks`; users who
    /// hold none are forgotten.
    func values(of blocks: [HeldBlock]) -> [UInt32: Value] {
        var byUser: [UInt32: [[Target]]] = [:]
        for block in blocks { byUser[block.uid, default: []].append(block.targets) }
        let earlier = kept.withLock { $0 }
        var now: [UInt32: (targets: [[Target]], value: Value)] = [:]
        for (uid, targets) in byUser {
            if let kept = earlier[uid], kept.targets == targets { now[uid] = kept } else { now[uid] = (targets, derive(targets)) }
        }
        kept.withLock { $0 = now }
        return now.mapValues(\.value)
    }
}
