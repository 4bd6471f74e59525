import Domain

/// The `system` shield of a session whose service root has since removed
/// (`system uninstall`; semantics.md, "Uninstall strands nobody"): the
/// uninstall lifted every block it held, as a release does, so there is
/// nothing left to raise, lower or ask, and no command fails for it. The
/// session runs to its end with nothing blocked; `doctor` and the session
/// say so. A service that is installed but does not answer is not this:
/// its shield fails loudly (`SystemShield`).
///
/// Nothing is weakened by a user who makes a session name a removed
/// service: an installed service holds its blocks on its own authority,
/// whatever a client believes.
public struct RemovedServiceShield: Shield {
    /// The identity the session recorded (`system:` and the socket).
    public let identity: String

    public init(identity: String) {
        self.identity = identity
    }

    /// Blocks nothing: the service that would is gone.
    public func reach(askingAboutApps: Bool) async -> ShieldReach { .recordsOnly }

    public func raise(_ targets: [Target], for session: SessionID) async throws {}

    public func lower(for session: SessionID) async throws {}

    /// Nothing is held: the uninstall lifted it.
    public func state() async throws -> ShieldState? { nil }
}
