import Domain
import FoundationEssentials
#if canImport(Glibc)
import Glibc
#endif

/// Answers the Auth context's "does a strict session run?" for one user of
/// the system service: whether it holds a strict block of that user's whose
/// time is not up. A passcode cannot be set then (no new way out).
public struct HeldStrictBlockQuery: StrictSessionQuery {
    private let store: any HeldBlockStore
    private let uid: UInt32
    private let clock: any RetimeShared.Clock

    public init(store: any HeldBlockStore, uid: UInt32, clock: any RetimeShared.Clock) {
        self.store = store
        self.uid = uid
        self.clock = clock
    }

    public func strictUntil() async throws -> Date? {
        let now = clock.now(), boot = clock.bootTime()
        return try await store.blocks().lazy.filter { $0.uid == self.uid && $0.holdsStrictly }.compactMap { held -> Date? in
            var block = held
            block.advance(to: boot)
            return block.isOver(at: now) ? nil : block.end(at: now)
        }.first
    }
}

/// What the service does with one user's passcode: the Auth context's own
/// use cases over that user's state in the service's directory.
public struct ServicePasscodeBook: Sendable {
    public let set: SetPasscodeUseCase
    public let change: ChangePasscodeUseCase
    public let verify: VerifyPasscodeUseCase
    /// The user's passcode state in the service (whether one is held).
    public let state: any AuthStateStore

    public init(set: SetPasscodeUseCase, change: ChangePasscodeUseCase, verify: VerifyPasscodeUseCase, state: any AuthStateStore) {
        self.set = set
        self.change = change
        self.verify = verify
        self.state = state
    }
}
