import FoundationEssentials
import RetimeShared

/// Everything that can go wrong in the Session context.
public enum SessionError: RetimeError, Equatable {
    case notActive
    /// Another session is active; carries its id and planned end (nil: open-ended).
    case alreadyActive(SessionID, until: Date?)
    case groupNotFound(name: String)
    case invalidLength(String)
    case strictNeedsEnd
    /// A strict session's `--until TIME` (no date) lies more than 12 hours
    /// ahead: the time had passed today, so it means tomorrow.
    case strictUntilFarAhead(Date)
    case invalidTag(String, reason: String)
    case invalidNote(reason: String)
    case alreadyPaused
    case notPaused
    /// A strict session refuses to be ended or weakened before its planned end.
    case strict(until: Date)
    /// The session changed under us again and again (other processes racing).
    case conflict
    /// The shield could not raise or lower the block; the cause is kept.
    case shieldFailed(String)
    /// The configured shield may not do its work for this user (the hosts
    /// shield for a user who may not write the hosts file); why, in words.
    case shieldNotPermitted(String)
    /// A session ended and went to history, but its block could not be
    /// lifted; the slot keeps the ended session so that the next command
    /// (or the daemon) tries again.
    case blockNotLifted(String)
    /// A session ended (its block lifted), but history could not take it
    /// (a segment that is not a regular file, a full disk): it waits in the
    /// slot, and every later command tries again; the cause is kept.
    case historyNotWritten(String)
    /// No ended session answers to this reference (id, prefix or `@N`).
    case sessionNotFound(String)
    /// A prefix names several ended sessions.
    case ambiguousSession(String, matches: Int)
    /// Not an id, a prefix of at least 6 characters, or `@N`.
    case invalidSessionReference(String)
    /// A tracked or edited session's times make no sense.
    case invalidTimes(String)
    /// `undo` found no change of this device's history commands left to undo.
    case nothingToUndo
    /// `unlock never`: a strict session has no early end at all.
    case unlockNever(until: Date)
    /// `unlock delay:`: the stop or pause happens when the countdown runs
    /// out; `started` says whether this request started it (else one ran already).
    case unlockCountdown(UnlockRequest.Action, until: Date, started: Bool)
    /// `unlock typing:N`: the text must be typed back first (the CLI shows it).
    case unlockNeedsTyping(count: Int)
    /// The text typed back was not the text shown.
    case unlockMistyped
    /// `stop --withdraw` with no countdown running.
    case noUnlockCountdown
    /// `next` on a session that runs no cycle.
    case noCycle
    /// `keep-away` with no away stretch of the running session to keep.
    case nothingAway
    /// `next` in a fixed cycle's last work phase: nothing follows it but the end.
    case lastRound(Date)
    /// A cycle's lengths, rounds or ratio out of range, or given with `--for`/`--until`.
    case invalidCycle(String)
    /// `pause` or `resume` of a cycle, which takes its breaks itself.
    case cycleTakesItsBreaks
    /// `next` in a strict cycle's work phase, which ends only at its end.
    case strictWorkPhase(until: Date)

    public var code: String {
        switch self {
        case .notActive: "session.notActive"
        case .alreadyActive: "session.alreadyActive"
        case .groupNotFound: "group.notFound"
        case .invalidLength: "session.invalidDuration"
        case .strictNeedsEnd: "session.strictNeedsEnd"
        case .strictUntilFarAhead: "session.strictUntilFarAhead"
        case .invalidTag: "session.invalidTag"
        case .invalidNote: "session.invalidNote"
        case .alreadyPaused: "session.alreadyPaused"
        case .notPaused: "session.notPaused"
        case .strict: "session.strict"
        case .conflict: "session.conflict"
        case .shieldFailed: "shield.failed"
        case .shieldNotPermitted: "shield.notPermitted"
        case .blockNotLifted: "shield.notLifted"
        case .historyNotWritten: "history.notWritten"
        case .sessionNotFound: "session.notFound"
        case .ambiguousSession: "session.ambiguous"
        case .invalidSessionReference: "session.invalidReference"
        case .invalidTimes: "session.invalidTimes"
        case .nothingToUndo: "history.nothingToUndo"
        case .unlockNever: "unlock.never"
        case .unlockCountdown: "unlock.countdown"
        case .unlockNeedsTyping: "unlock.needsTyping"
        case .unlockMistyped: "unlock.mistyped"
        case .noUnlockCountdown: "unlock.noCountdown"
        case .noCycle: "session.noCycle"
        case .nothingAway: "away.none"
        case .lastRound: "session.lastRound"
        case .invalidCycle: "session.invalidCycle"
        case .cycleTakesItsBreaks: "session.cycleTakesItsBreaks"
        case .strictWorkPhase: "session.strictPhase"
        }
    }

    public var kind: ErrorKind {
        switch self {
        case .invalidLength, .strictNeedsEnd, .strictUntilFarAhead, .invalidTag, .invalidNote, .invalidSessionReference,
             .invalidTimes, .invalidCycle: .invalidInput
        case .strict, .unlockNever, .unlockCountdown, .unlockNeedsTyping, .unlockMistyped, .strictWorkPhase: .authorization
        case .shieldFailed, .shieldNotPermitted, .blockNotLifted, .historyNotWritten: .storage
        case .notActive, .alreadyActive, .groupNotFound, .alreadyPaused, .notPaused, .conflict, .sessionNotFound,
             .ambiguousSession, .nothingToUndo, .noUnlockCountdown, .noCycle, .nothingAway, .lastRound, .cycleTakesItsBreaks: .domain
        }
    }

    public var description: String { message(writingInstants: utcInstant) }

    public func message(writingInstants instant: (Date) -> String) -> String {
        switch self {
        case .notActive: "no session is active"
        case .alreadyActive(_, let until?): "a session is already active, until \(instant(until))"
        case .alreadyActive(_, nil): "an open-ended session is already active"
        case .groupNotFound(let name): "no group named '\(name)'"
        case .invalidLength(let reason): "invalid session length: \(reason)"
        case .strictNeedsEnd: "a strict session needs an end: give --for or --until"
        case .strictUntilFarAhead(let end):
            "that time has passed today: the strict session would last until \(instant(end)), more than 12 hours"
        case .invalidTag(let tag, let reason): "invalid tag '\(tag)': \(reason)"
        case .invalidNote(let reason): "invalid note: \(reason)"
        case .alreadyPaused: "the session is already paused"
        case .notPaused: "the session is not paused"
        case .strict(let until): "the session is strict until \(instant(until))"
        case .conflict: "the session kept changing while retime tried to update it; try again"
        case .shieldFailed(let cause): "the shield failed: \(cause)"
        case .shieldNotPermitted(let why): "the shield cannot block here: \(why)"
        case .blockNotLifted(let cause): "the session ended and is in history, but its block could not be lifted: \(cause)"
        case .historyNotWritten(let cause):
            "the session ended, but history cannot take it: \(cause); it is kept and written by the first command after that is mended"
        case .sessionNotFound(let reference): "no ended session '\(reference)'"
        case .ambiguousSession(let prefix, let matches): "'\(prefix)' names \(matches) sessions; give more of the id"
        case .invalidSessionReference(let text):
            "'\(text)' is not a session: give its id, at least 6 characters of it, or @N (the Nth most recent)"
        case .invalidTimes(let reason): "invalid times: \(reason)"
        case .nothingToUndo: "nothing to undo: no track, edit, delete or import on this device is left to revert"
        case .unlockNever(let until): "the session is strict until \(instant(until)), and unlock is never: it cannot end early"
        case .unlockCountdown(let action, let until, let started):
            (started ? "countdown started: " : "a countdown is already running: ")
                + "the session \(action == .stop ? "stops" : "pauses") at \(instant(until)); `retime stop --withdraw` cancels it"
        case .unlockNeedsTyping(let count): "unlock is typing:\(count): type the \(count) characters shown on the terminal"
        case .unlockMistyped: "the text typed back does not match: the session goes on"
        case .noUnlockCountdown: "no countdown to end the session early is running"
        case .noCycle: "the session runs no cycle: 'retime next' moves a session started with --cycle or --flow"
        case .nothingAway: "the running session has no away time to keep"
        case .lastRound(let end): "this is the cycle's last work phase: it ends with the session at \(instant(end)) ('retime stop' ends it now)"
        case .invalidCycle(let reason): "invalid cycle: \(reason)"
        case .cycleTakesItsBreaks: "a cycle takes its breaks itself: 'retime next' ends the phase now"
        case .strictWorkPhase(let until): "a strict cycle's work phase ends only at its end, at \(instant(until))"
        }
    }
}

extension SessionError {
    /// The shield could not raise or keep a block (whatever the cause), as
    /// opposed to a failure of the session itself.
    public var isShieldFailure: Bool {
        switch self {
        case .shieldFailed, .shieldNotPermitted: true
        default: false
        }
    }
}
