import Domain
import FoundationEssentials
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// Answers one request line for a caller the kernel named: every request is
/// treated as hostile (any bytes, any fields), and every failure becomes an
/// answer, never a crash. What a caller may do is `HeldBlocks`' to decide.
public struct ShieldRequestHandler: Sendable {
    private let blocks: HeldBlocks
    private let clock: any RetimeShared.Clock
    /// The passcode use cases of one user, by uid.
    private let passcodes: @Sendable (UInt32) throws -> ServicePasscodeBook
    /// Each user's share of passcode work (each request may hash once or
    /// twice): enough for a person, too little to hold the service.
    private let hashing: PerUserBudget
    /// Each user's share of new names to block (`raiseBudget`).
    private let raising: PerUserBudget
    /// The texts issued for `unlock typing:N`, one per user.
    private let challenges = TypingChallenges()

    public init(blocks: HeldBlocks, clock: any RetimeShared.Clock,
                passcodes: @escaping @Sendable (UInt32) throws -> ServicePasscodeBook,
                hashing: PerUserBudget = ShieldRequestHandler.passcodeBudget(), raising: PerUserBudget = ShieldRequestHandler.raiseBudget()) {
        self.raising = raising
        self.blocks = blocks
        self.clock = clock
        self.passcodes = passcodes
        self.hashing = hashing
    }

    /// Eight passcode requests at once, then one a second, per user.
    public static func passcodeBudget() -> PerUserBudget { PerUserBudget(burst: 8, every: 1) }

    /// Each user's share of new names to block: a token a `namesPerToken`
    /// names its blocks did not hold, 40 at once (20,000 names: two starts
    /// of the largest group), then 10 a second (5,000 names). One user
    /// re-raising thousands of fresh names in a loop made every other
    /// user's `start` wait behind the rewrites (issue 44).
    public static func raiseBudget() -> PerUserBudget { PerUserBudget(burst: 40, every: 0.1) }
    static let namesPerToken = 500

    /// The latest a block may end: the CLI's longest session from now, and
    /// a strict block no later than its length from now (a moment of
    /// leeway for the time the request took to come).
    static func checkEnd(_ plannedEnd: Date?, length: Double?, at now: Date) throws {
        guard let plannedEnd else { return }
        let longest = min(length ?? SessionLength.allowed.upperBound, SessionLength.allowed.upperBound) + endLeeway
        guard plannedEnd.timeIntervalSince(now) <= longest else {
            throw HeldBlockError.badRequest("a block ends at most \(Int(longest - endLeeway)) s from now (its length; at most 24 hours)")
        }
    }

    static let endLeeway: TimeInterval = 5

    /// The answer line, and whether the request may have changed the blocks
    /// (the service then looks at its deadlines again).
    public func answer(_ line: [UInt8], from uid: UInt32) async -> (answer: [UInt8], changed: Bool) {
        let answer: ShieldProtocol.Answer
        var changed = false
        do {
            let request = try ShieldProtocol.decode(ShieldProtocol.Request.self, from: line)
            changed = [.raise, .lower, .release, .allow].contains(request.op)
            answer = try await handle(request, from: uid)
        } catch let error as any RetimeError {
            answer = .failure(error)
        } catch {
            answer = .failure(HeldBlockError.badRequest("\(error)"))
        }
        return ((try? ShieldProtocol.line(answer)) ?? Array("{\"ok\":false,\"version\":1}\n".utf8), changed)
    }

    private func handle(_ request: ShieldProtocol.Request, from uid: UInt32) async throws -> ShieldProtocol.Answer {
        guard request.version == ShieldProtocol.version else {
            throw HeldBlockError.badRequest("protocol version \(request.version) is not \(ShieldProtocol.version)")
        }
        switch request.op {
        case .raise:
            guard let session = request.session else { throw HeldBlockError.badRequest("raise needs a session") }
            // A user past its share of new names is told so before its
            // targets cost anything (a loop of refused raises is cheap).
            if request.targets?.isEmpty == false, let wait = raising.shortfall(for: uid) { throw HeldBlockError.slowDown(retryAfter: wait) }
            let targets = try Self.targets(request)
            if let length = request.length, !(length.isFinite && SessionLength.allowed.contains(length)) {
                throw HeldBlockError.badRequest("a block lasts from 1 second to 24 hours")
            }
            try Self.checkEnd(request.plannedEnd, length: request.length, at: clock.now())
            let strict = request.strict ?? false
            guard !strict || (request.plannedEnd != nil && request.length != nil) else {
                throw HeldBlockError.badRequest("a strict block needs its planned end and length")
            }
            let unlock: UnlockMethod?
            do { unlock = try request.unlock.map(UnlockMethod.init(parsing:)) } catch {
                throw HeldBlockError.badRequest("unlock: \(error.reason)")
            }
            let group = try request.group.map { text in
                guard let id = GroupID(text) else { throw HeldBlockError.badRequest("group is a group's id") }
                return id
            }
            try await spendOnNames(targets, for: uid)
            try await blocks.raise(.init(session: session, targets: targets, strict: strict,
                                         plannedEnd: request.plannedEnd, length: request.length, unlock: unlock,
                                         group: group, dailyAllowance: try Self.daily(request.allowance),
                                         cycle: try Self.cycle(request.cycle), startedAt: request.startedAt), for: uid)
        case .lower:
            guard let session = request.session else { throw HeldBlockError.badRequest("lower needs a session") }
            if let typed = request.typed, !UnlockMethod.typingLengths.contains(typed) {
                throw HeldBlockError.badRequest("typed is a count of characters")
            }
            do { try await blocks.lower(session, for: uid, typed: request.typed) } catch HeldBlockError.strict where request.passcode != nil {
                // Early, with the passcode the service keeps for this user
                // (its lockout and audit): one counted attempt.
                try spend(uid)
                try await passcodes(uid).verify.execute(request.passcode.map(Passcode.init), action: "system.lower")
                try await blocks.lower(session, for: uid, overridden: true, typed: request.typed)
            }
        case .requestUnlock:
            guard let session = request.session else { throw HeldBlockError.badRequest("requestUnlock needs a session") }
            var answer = ShieldProtocol.Answer(ok: true)
            answer.until = try await blocks.requestUnlock(session, for: uid)
            return answer
        case .allow:
            guard let session = request.session else { throw HeldBlockError.badRequest("allow needs a session") }
            let grant = try await blocks.allow(session, for: uid, length: request.length, daily: try Self.daily(request.allowance))
            var answer = ShieldProtocol.Answer(ok: true)
            answer.until = grant.until
            answer.left = grant.left
            return answer
        case .typingChallenge:
            guard let session = request.session else { throw HeldBlockError.badRequest("typingChallenge needs a session") }
            guard let count = try await blocks.typingCount(session, for: uid) else {
                throw HeldBlockError.badRequest("no strict block of this session is lowered by typing")
            }
            var answer = ShieldProtocol.Answer(ok: true)
            answer.challenge = challenges.issue(count: count, session: session, for: uid, at: clock.now())
            return answer
        case .typedBack:
            guard let session = request.session, let text = request.typedText else { throw HeldBlockError.badRequest("typedBack needs a session and typedText") }
            guard challenges.check(text, session: session, for: uid, at: clock.now()) else {
                throw HeldBlockError.refused(code: "unlock.mistyped", message: "the text typed back is not the text the system service showed")
            }
            try await blocks.proveTyping(session, for: uid)
        case .withdrawUnlock:
            guard let session = request.session else { throw HeldBlockError.badRequest("withdrawUnlock needs a session") }
            try await blocks.withdrawUnlock(session, for: uid)
        case .setPasscode:
            try spend(uid)
            try await passcodes(uid).set.execute(Passcode(try Self.required(request.passcode)))
        case .changePasscode:
            try spend(uid)
            try await passcodes(uid).change.change(from: Passcode(try Self.required(request.passcode)),
                                                  to: Passcode(try Self.required(request.newPasscode)))
        case .removePasscode:
            try spend(uid)
            try await passcodes(uid).change.remove(Passcode(try Self.required(request.passcode)))
        case .verifyPasscode:
            // Right or wrong, a check is a hash: budgeted like every other.
            try spend(uid)
            try await passcodes(uid).verify.execute(Passcode(try Self.required(request.passcode)), action: "system.verify")
        case .status:
            let now = clock.now()
            var answer = ShieldProtocol.Answer(ok: true, blocks: try await blocks.status(of: uid).map { ShieldProtocol.block($0, at: now) },
                                               layers: await reports(for: uid))
            let passcode = try? await passcodes(uid).state.state()
            answer.passcodeSet = passcode?.passcodeHash != nil
            answer.passcodeFailedAttempts = passcode?.failedAttempts
            answer.passcodeLockedUntil = passcode?.lockedOut(at: now)
            return answer
        case .inspect:
            guard (request.targets?.count ?? 0) <= ShieldProtocol.maximumInspected else {
                throw HeldBlockError.badRequest("inspect at most \(ShieldProtocol.maximumInspected) targets a request; ask in parts")
            }
            let targets = try Self.targets(request)
            return .init(ok: true, checks: await blocks.checks(targets, for: uid))
        case .release:
            guard request.uid != nil || request.all == true else { throw HeldBlockError.badRequest("release needs a uid or all") }
            let released = try await blocks.release(uid: request.all == true ? nil : request.uid, by: uid)
            let now = clock.now()
            return .init(ok: true, blocks: released.map { ShieldProtocol.block($0, at: now) }, layers: await reports(for: uid))
        }
        let now = clock.now()
        return .init(ok: true, blocks: try await blocks.status(of: uid).map { ShieldProtocol.block($0, at: now) },
                     layers: await reports(for: uid))
    }

    /// The layers' reports as `uid` may see them: root all, any other user
    /// nothing of other users' activity.
    private func reports(for uid: UInt32) async -> [LayerReport] {
        let reports = await blocks.reports()
        return uid == 0 ? reports : reports.map { $0.forUser() }
    }

    /// Takes `uid`'s share for the names of `targets` its blocks do not
    /// hold yet (a raise of what is held, as every refresh sends, is free),
    /// or says when to ask again.
    private func spendOnNames(_ targets: [Target], for uid: UInt32) async throws {
        let held = Set(try await blocks.status(of: uid).flatMap(\.targets))
        let fresh = targets.reduce(0) { $0 + (held.contains($1) ? 0 : 1) }
        guard fresh > 0 else { return }
        let tokens = (fresh + Self.namesPerToken - 1) / Self.namesPerToken
        if let wait = raising.take(tokens, for: uid) { throw HeldBlockError.slowDown(retryAfter: wait) }
    }

    /// Takes one of `uid`'s passcode requests, or says when to ask again.
    private func spend(_ uid: UInt32) throws {
        if let wait = hashing.take(for: uid) { throw HeldBlockError.slowDown(retryAfter: wait) }
    }

    /// The request's targets, read; counted before any is parsed.
    private static func targets(_ request: ShieldProtocol.Request) throws -> [Target] {
        guard (request.targets?.count ?? 0) <= HeldBlocks.maximumTargets else {
            throw HeldBlockError.badRequest("at most \(HeldBlocks.maximumTargets) targets")
        }
        return try (request.targets ?? []).map { text in
            do { return try Target(parsing: text) } catch { throw HeldBlockError.badRequest("\(error)") }
        }
    }

    /// A focus cycle as a request gives it, checked as `start --cycle` checks it.
    private static func cycle(_ cycle: Cycle?) throws -> Cycle? {
        do { return try cycle?.validated() } catch { throw HeldBlockError.badRequest("cycle: \(error)") }
    }

    /// A daily allowance as a request gives it: from 1 second to a day.
    private static func daily(_ seconds: Double?) throws -> TimeInterval? {
        guard let seconds else { return nil }
        guard seconds.isFinite, seconds >= 1, seconds <= 86_400 else { throw HeldBlockError.badRequest("an allowance is from 1 second to 24 hours a day") }
        return seconds
    }

    private static func required(_ passcode: String?) throws -> String {
        guard let passcode else { throw HeldBlockError.badRequest("a passcode is needed") }
        return passcode
    }
}

/// The texts the service issued for `unlock typing:N`: one per user at a
/// time (a new one replaces it), each good for one answer within
/// `lifetime`. Kept in memory: a restart only asks for a new one.
final class TypingChallenges: Sendable {
    struct Challenge {
        let session: SessionID
        let text: String
        let expires: Date
    }

    /// How long an issued text may be typed back.
    static let lifetime: TimeInterval = 300
    /// The characters it is drawn from (as the CLI's own).
    static let alphabet = Array("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789")
    private let issued = Mutex<[UInt32: Challenge]>([:])

    /// New random text of `count` characters for `uid`'s block of `session`.
    func issue(count: Int, session: SessionID, for uid: UInt32, at now: Date) -> String {
        var generator = SystemRandomNumberGenerator()
        let text = String((0..<count).map { _ in Self.alphabet.randomElement(using: &generator)! })
        issued.withLock { $0[uid] = Challenge(session: session, text: text, expires: now.addingTimeInterval(Self.lifetime)) }
        return text
    }

    /// Whether `text` is `uid`'s issued text for `session`, in time. The
    /// challenge is used up either way: one guess per text.
    func check(_ text: String, session: SessionID, for uid: UInt32, at now: Date) -> Bool {
        guard let challenge = issued.withLock({ $0.removeValue(forKey: uid) }) else { return false }
        return challenge.session == session && now <= challenge.expires && challenge.text == text
    }
}
