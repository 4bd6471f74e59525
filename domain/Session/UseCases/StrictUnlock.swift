import FoundationEssentials
import RetimeShared

/// Decides whether a strict session may be stopped or paused before its
/// time is up, by the unlock method in force (config `unlock`; cli.md,
/// "Ending a strict session early"): the passcode, a countdown, text typed
/// back, or never. `stop` and `pause` ask it; `stop --withdraw` cancels a
/// countdown through it.
public struct StrictUnlock: Sendable {
    private let settings: any SettingsStore
    private let override: any StrictOverride
    private let sessions: any SessionRepository
    private let shields: any ShieldDirectory
    /// The clock that judges each session here (`SessionClocks`).
    private let clocks: SessionClocks
    private let events: SessionEventPublisher
    private let logger: Logger

    /// `shields`: a shield that holds blocks on its own authority (the
    /// system service) keeps its own countdown, started first.
    public init(settings: any SettingsStore, override: any StrictOverride, sessions: any SessionRepository, shields: any ShieldDirectory,
                clocks: SessionClocks, events: SessionEventPublisher, logger: Logger) {
        self.shields = shields
        self.settings = settings
        self.override = override
        self.sessions = sessions
        self.clocks = clocks
        self.events = events
        self.logger = logger
    }

    /// What an early stop or pause may do now.
    public enum Verdict: Sendable, Equatable {
        /// Go ahead.
        case proceed
        /// Record this session, whose countdown has just started, instead.
        case countdown(Session)
    }

    /// The method the config sets now. A value that does not parse (a
    /// hand-edited file) counts as the default, and is logged.
    public func method() async throws -> UnlockMethod {
        try await Self.configured(in: settings, logger: logger)
    }

    /// The method in force for `session`: the one it recorded as it started
    /// (the pause gap: a rule edited during a pause does not hold when it
    /// resumes), else the config's.
    public func method(for session: Session) async throws -> UnlockMethod {
        if let recorded = session.unlock { return recorded }
        return try await method()
    }

    /// The method `settings` sets (the default when unset or unreadable).
    static func configured(in settings: (any SettingsStore)?, logger: Logger?) async throws -> UnlockMethod {
        guard let text = try await settings?.value(for: SettingKey.unlock.rawValue) else { return .standard }
        do { return try UnlockMethod(parsing: text) } catch {
            logger?.warning("the unlock setting is not an unlock method; the passcode rule applies", metadata: ["value": "\(text)"])
            return .standard
        }
    }

    /// Whether `current`, strict until `until`, may `action` now. `typed`:
    /// how many characters the caller had typed back exactly (`typing:N`).
    /// Throws the refusal; `.countdown` when the countdown starts now.
    public func admit(_ current: Session, _ action: UnlockRequest.Action, passcode: Passcode?, typed: Int?,
                      until: Date) async throws -> Verdict {
        let clock = clocks.clock(for: current), now = clock.now(), boot = clock.bootTime()
        if current.dueUnlock(at: now, boot: boot) != nil { return .proceed }
        switch try await method(for: current) {
        case .passcode:
            try await override.authorize(action.rawValue, passcode: passcode, otherwise: SessionError.strict(until: until))
            return .proceed
        case .never:
            throw SessionError.unlockNever(until: until)
        case .typing(let count):
            guard let typed, typed >= count else { throw SessionError.unlockNeedsTyping(count: count) }
            return .proceed
        case .delay(let delay):
            // Asking again does not restart it, whichever action it was for.
            if let running = current.unlockRequest {
                throw SessionError.unlockCountdown(running.action, until: running.end(at: now, boot: boot), started: false)
            }
            // The shield's own countdown first (the system service's), so
            // it runs out no later than the session's, which lowers it.
            _ = try await shields.shield(of: current).requestUnlock(for: current.id)
            return .countdown(current.requestingUnlock(UnlockRequest(action: action, at: clock.now(), boot: clock.bootTime(), delay: delay)))
        }
    }

    /// Whether `current`, strict until `until`, may be cancelled now: only
    /// under the passcode rule, with the passcode. Under the others an
    /// early end is `stop`'s (a countdown, text typed back) or none, and
    /// `cancel` is no way around them.
    public func admitCancel(_ current: Session, passcode: Passcode?, until: Date) async throws {
        switch try await method(for: current) {
        case .passcode: try await override.authorize("cancel", passcode: passcode, otherwise: SessionError.strict(until: until))
        case .never: throw SessionError.unlockNever(until: until)
        case .delay, .typing: throw SessionError.strict(until: until)
        }
    }

    /// Records `counting` (as `admit` returned it) in place of `current`,
    /// tells hooks, and throws `unlockCountdown`: the stop or pause has not
    /// happened yet. Returns only when the session changed meanwhile (try again).
    public func startCountdown(_ current: Session, _ counting: Session) async throws {
        guard let request = counting.unlockRequest, try await sessions.replace(current, with: counting) else { return }
        await events.session(.unlockRequested, counting, at: request.requestedAt)
        let clock = clocks.clock(for: counting)
        throw SessionError.unlockCountdown(request.action, until: request.end(at: clock.now(), boot: clock.bootTime()), started: true)
    }

    /// The text to type back for the running session's early end under
    /// `typing:N`, when its shield issues it (the system service, which
    /// checks it too); nil: the caller makes its own.
    public func typingChallenge() async throws -> String? {
        guard let current = try await sessions.current() else { return nil }
        return try await shields.shield(of: current).typingChallenge(for: current.id)
    }

    /// Hands the text typed back to the shield that issued the challenge.
    public func typedBack(_ text: String) async throws {
        guard let current = try await sessions.current() else { return }
        try await shields.shield(of: current).typedBack(text, for: current.id)
    }

    /// Cancels the running countdown (`stop --withdraw`); returns the
    /// session as it goes on.
    public func withdraw() async throws -> Session {
        let going = try await sessions.retryingActive(known: .none) { current -> Session? in
            guard current.unlockRequest != nil else { throw SessionError.noUnlockCountdown }
            let next = current.withdrawingUnlock()
            return try await sessions.replace(current, with: next) ? next : nil
        }
        try await shields.shield(of: going).withdrawUnlock(for: going.id)
        await events.session(.unlockWithdrawn, going, at: clocks.clock(for: going).now())
        return going
    }
}
