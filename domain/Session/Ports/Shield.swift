import FoundationEssentials
import RetimeGroup
import RetimeShared

/// Enforces a block: while raised, the targets cannot be reached. The block
/// belongs to one session, so a late "lower" from a session that has ended
/// never lifts the block of the session that followed it.
///
/// The contract every adapter keeps is `ShieldContract`.
public protocol Shield: Sendable {
    /// Names this shield and what it needs to be found again (the hosts
    /// shield: its file), as `ShieldDirectory.shield(identity:)` reads it.
    /// A session records it, so its block is lowered through the shield that
    /// raised it, whatever the configuration says by then.
    var identity: String { get }
    /// Blocks exactly `targets` on behalf of `session`, replacing any block.
    func raise(_ targets: [Target], for session: SessionID) async throws
    /// The same, for a shield that needs the session's terms (the system
    /// service holds a strict block until its end); by default the session
    /// is named by its id alone.
    func raise(_ targets: [Target], for session: Session) async throws
    /// Lifts the block if it belongs to `session`; otherwise does nothing.
    func lower(for session: SessionID) async throws
    /// The same, with the passcode that lets a strict block end early, for
    /// a shield that decides that itself (the system service); by default
    /// the passcode is not needed.
    func lower(for session: SessionID, passcode: Passcode?) async throws
    /// The same, with the characters typed back for `unlock typing:N`, for
    /// a shield that decides an early end itself; by default, as above.
    func lower(for session: SessionID, passcode: Passcode?, typed: Int?) async throws
    /// Starts the shield's own countdown to lower a strict block early
    /// (`unlock delay:`), for a shield that holds blocks on its own
    /// authority (the system service); returns when it runs out, nil when
    /// the shield keeps none (by default).
    func requestUnlock(for session: SessionID) async throws -> Date?
    /// Cancels that countdown; by default there is none.
    func withdrawUnlock(for session: SessionID) async throws
    /// For `unlock typing:N`, a shield that checks the text typed back
    /// itself (the system service) issues it: the text to show for an early
    /// end of `session`'s strict block; nil (by default) when the caller
    /// makes its own.
    func typingChallenge(for session: SessionID) async throws -> String?
    /// Hands that shield the text typed back for its challenge; it refuses
    /// a mismatch. By default there is nothing to hand.
    func typedBack(_ text: String, for session: SessionID) async throws
    /// Lifts the block of `session` for an allowance of `length` seconds
    /// of a group whose daily allowance is `daily`. A shield that counts
    /// allowances itself (the system service) decides, keeps what was
    /// spent, raises the block at the end on its own, and returns that
    /// end; by default the block is lowered and nil returned (the caller
    /// counts, and raises it again).
    func allow(for session: SessionID, length: TimeInterval, daily: TimeInterval?) async throws -> Date?
    /// What is blocked now, and for whom; nil when nothing is.
    func state() async throws -> ShieldState?
    /// What this shield can block, so that a session says what it really
    /// blocks. Whether apps are blocked is asked only with `askingAboutApps`
    /// (the system service answers it, at a round trip's cost).
    func reach(askingAboutApps: Bool) async -> ShieldReach
}

/// What a shield blocks of a group's targets.
public struct ShieldReach: Sendable, Equatable {
    /// How a shield stands with apps.
    public enum Apps: Sendable, Equatable {
        /// Blocked apps are terminated.
        case blocked
        /// This shield could, but its app layer is off.
        case layerOff
        /// This shield cannot block apps.
        case unsupported
    }

    /// Whether blocked sites cannot be reached.
    public var sites: Bool
    /// Nil when not asked.
    public var apps: Apps?
    /// The parts of the shield that fail to enforce the block now, each
    /// with why (the system service's hosts layer, when /etc cannot be
    /// written): the block is held and retried, but a user must be told.
    public var failing: [String]
    /// Whether a blocked domain's subdomains are blocked too (the system
    /// service's name layer answers them), or only the domain and its
    /// `www.` (a hosts file has no wildcards).
    public var subdomains: Bool

    public init(sites: Bool, apps: Apps?, failing: [String] = [], subdomains: Bool = false) {
        self.sites = sites
        self.apps = apps
        self.failing = failing
        self.subdomains = subdomains
    }

    /// A shield that only records what it would block.
    public static let recordsOnly = ShieldReach(sites: false, apps: .unsupported)
    public var recordsOnly: Bool { !sites && apps != .blocked }
}

/// A raised block.
public struct ShieldState: Sendable, Hashable {
    public var session: SessionID
    public var targets: [Target]
    /// Root lifted it (`system release`): the session's block stays down
    /// for the rest of the session, whatever any command of the user does.
    public var released: Bool
    /// Whether the shield holds it as strict, for a shield that holds
    /// blocks on its own authority (the system service): a strict session
    /// whose block it holds loosely could be lowered at will (`doctor`).
    /// Nil for a shield that keeps no terms (its user lowers any block).
    public var strict: Bool?

    public init(session: SessionID, targets: [Target], released: Bool = false, strict: Bool? = nil) {
        self.session = session
        self.targets = targets
        self.released = released
        self.strict = strict
    }
}

extension ShieldState {
    /// Whether the shield holds `session`'s block loosely though the
    /// session is strict (a raise of its id before the strict one, by a
    /// service from before blocks only tightened): its user could lower it.
    public func isHeldLoosely(for session: Session) -> Bool {
        session.strict && strict == false
    }
}

extension Shield {
    /// The kind of shield, as the `shield` setting names it (`none`,
    /// `hosts`, `system`): its identity up to the first colon.
    public var kind: String { String(identity.prefix { $0 != ":" }) }

    public func raise(_ targets: [Target], for session: Session) async throws {
        try await raise(targets, for: session.id)
    }

    public func lower(for session: SessionID, passcode: Passcode?) async throws {
        try await lower(for: session)
    }

    public func lower(for session: SessionID, passcode: Passcode?, typed: Int?) async throws {
        try await lower(for: session, passcode: passcode)
    }

    public func requestUnlock(for session: SessionID) async throws -> Date? { nil }

    public func withdrawUnlock(for session: SessionID) async throws {}

    public func typingChallenge(for session: SessionID) async throws -> String? { nil }

    public func typedBack(_ text: String, for session: SessionID) async throws {}

    public func allow(for session: SessionID, length: TimeInterval, daily: TimeInterval?) async throws -> Date? {
        try await lower(for: session)
        return nil
    }
}
