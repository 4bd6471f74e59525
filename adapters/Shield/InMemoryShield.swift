import Domain
import Synchronization

/// A shield that only remembers what it was asked to do: the reference
/// implementation of `Shield`, and a spy for use-case tests.
public final class InMemoryShield: Shield {
    /// One request the shield received, in order.
    public enum Operation: Hashable, Sendable {
        case raise([Target], SessionID)
        case lower(SessionID)
    }

    private struct State {
        var raised: ShieldState?
        var operations: [Operation] = []
    }

    private let state = Mutex(State())

    public init(reach: ShieldReach = ShieldReach(sites: true, apps: .blocked)) {
        self.reach = reach
    }

    public var identity: String { "memory" }

    /// What it says it blocks: everything, unless a test says otherwise.
    public let reach: ShieldReach
    public func reach(askingAboutApps: Bool) async -> ShieldReach {
        ShieldReach(sites: reach.sites, apps: askingAboutApps ? reach.apps : nil)
    }

    public func raise(_ targets: [Target], for session: SessionID) async throws {
        state.withLock {
            $0.raised = ShieldState(session: session, targets: targets)
            $0.operations.append(.raise(targets, session))
        }
    }

    public func lower(for session: SessionID) async throws {
        state.withLock {
            if $0.raised?.session == session { $0.raised = nil }
            $0.operations.append(.lower(session))
        }
    }

    public func state() async throws -> ShieldState? {
        state.withLock { $0.raised }
    }

    /// Every request so far, oldest first.
    public var operations: [Operation] { state.withLock { $0.operations } }
}
