#if os(Linux)
import Domain
import FoundationEssentials
import Synchronization

/// logind's flags for one session, and the `PresenceChange`s they make:
/// the first yielded when the state is read, then one per change of the
/// state they add up to (asleep over locked over idle over present).
final class PresenceFollower: Sendable {
    struct Flags: Sendable {
        var asleep = false, locked = false, idle = false
        /// CLOCK_REALTIME microseconds (logind's IdleSinceHint); 0 unknown.
        var idleSince: UInt64 = 0
        /// When the desktop's own monitor (Mutter's) says input stopped; nil when it says active or is absent.
        var desktopIdleSince: Date?

        /// Idle when either logind or the desktop says so.
        var state: PresenceChange.State { asleep ? .asleep : locked ? .locked : idle || desktopIdleSince != nil ? .idle : .present }

        /// When idleness began: the earlier of the two sources that say idle.
        var idleStart: Date? {
            let logind = idle && idleSince > 0 ? Date(timeIntervalSince1970: Double(idleSince) / 1_000_000) : nil
            return [logind, desktopIdleSince].compactMap { $0 }.min()
        }
    }

    private let continuation: AsyncStream<PresenceChange>.Continuation
    /// nil until the state is read: signals before it only update the flags.
    private let current = Mutex<(flags: Flags, yielded: PresenceChange.State?)>((Flags(), nil))

    init(continuation: AsyncStream<PresenceChange>.Continuation) {
        self.continuation = continuation
    }

    func begin(_ flags: Flags) {
        current.withLock { current in
            // The desktop's monitor may have spoken first: its part stays.
            let desktop = current.flags.desktopIdleSince
            current.flags = flags
            current.flags.desktopIdleSince = desktop
            current.yielded = current.flags.state
            continuation.yield(Self.change(current.flags))
        }
    }

    func update(_ change: (inout Flags) -> Void) {
        current.withLock { current in
            change(&current.flags)
            guard let yielded = current.yielded, yielded != current.flags.state else { return }
            current.yielded = current.flags.state
            continuation.yield(Self.change(current.flags))
        }
    }

    private static func change(_ flags: Flags) -> PresenceChange {
        let since = flags.state == .idle ? flags.idleStart ?? Date() : Date()
        return PresenceChange(state: flags.state, since: since)
    }
}
#endif
