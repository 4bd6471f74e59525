/// Holds the one current session: the active one, or one that has just ended
/// and is on its way to history. Changes are compare-and-swap, so concurrent
/// processes that notice the same expiry agree on a single winner.
///
/// The contract every adapter keeps is `SessionRepositoryContract`.
public protocol SessionRepository: Sendable {
    /// The session in the slot, or nil.
    func current() async throws -> Session?

    /// Puts `new` in the slot if it holds exactly `expected` (nil = empty),
    /// and reports whether it did. Values read back equal values written.
    /// Every change survives a crash once this returns, except the last
    /// step of an ending (an ended session replaced by nil): a crash may
    /// bring that session back, and the next command finishes it again
    /// (`SessionArchiver`), so an adapter may spare that write's sync.
    func replace(_ expected: Session?, with new: Session?) async throws -> Bool

    /// Sessions that another device put in the slot and that a later value
    /// replaced without having seen them: two devices sharing a data folder
    /// each started a session before either saw the other's. Oldest first;
    /// empty for a slot only one device writes.
    func unseen() async throws -> [Session]

    /// Records that an unseen session has been dealt with (kept or ended in
    /// history), so no device deals with it again.
    func settle(_ session: Session) async throws

    /// The id of the last session the slot held, also once it was emptied;
    /// nil when the slot never held one, or the store cannot tell. A block
    /// this machine still holds is lowered as orphaned only if it is that
    /// session's (not a session of another data directory of this user).
    func lastHeld() async throws -> SessionID?

    /// The id of the session the slot last held, when another device
    /// sharing the data folder emptied the slot (stopped it there, lowering
    /// only its own block); nil while the slot holds a session, when this
    /// device emptied it, or when the store cannot tell.
    func endedElsewhere() async throws -> SessionID?

    /// Whether the slot's records show the session `id` ended (an ended
    /// value of it) or removed for good (stopped or cancelled), whatever
    /// the slot holds now, or that it left them for good after this machine
    /// raised its block (`blockRaised`): a block this machine still holds
    /// for it is orphaned. False when the store cannot tell.
    func hasEnded(_ id: SessionID) async throws -> Bool

    /// Remembers on this machine which of the slot's values of the session
    /// `id` this machine's block was just raised from. A cancel is not
    /// history, and the device that cancelled it keeps only its last few
    /// removals: once that value's own log has dropped it under later lines
    /// and no device's log names the session any more, `hasEnded` says it
    /// ended. An older copy of that log, which holds no line after the
    /// value, says nothing.
    func blockRaised(for id: SessionID) async throws

    /// The last value of the session `id` the slot's records hold,
    /// whatever the slot holds now; nil when they hold none (or the store
    /// cannot tell).
    func lastValue(of id: SessionID) async throws -> Session?

    /// Whether the slot is read without some of its records: another
    /// device's log of it does not read and is left out (semantics.md, "A
    /// peer's damage is not mine"). A session running there may be missing
    /// here, so no block is lowered for the slot being empty meanwhile.
    func leavesOut() async throws -> Bool
}

extension SessionRepository {
    /// A slot only one device writes never replaces a session unseen.
    public func unseen() async throws -> [Session] { [] }
    public func settle(_ session: Session) async throws {}
    public func lastHeld() async throws -> SessionID? { nil }
    public func endedElsewhere() async throws -> SessionID? { nil }
    public func hasEnded(_ id: SessionID) async throws -> Bool { false }
    public func blockRaised(for id: SessionID) async throws {}
    public func lastValue(of id: SessionID) async throws -> Session? { nil }
    public func leavesOut() async throws -> Bool { false }
}
