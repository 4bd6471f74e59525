import Domain
import FoundationEssentials
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// The `system` shield: blocks through the root system service (`retime
/// system run`), which holds each user's block on its own authority, so the
/// blocked user cannot lift it early (docs/shields.md). A strict session's
/// block carries its planned end and length; the service lowers it only
/// once its time is up by both clocks.
public struct SystemShield: Shield {
    public static let identityPrefix = "system:"
    public let client: ShieldClient
    /// The layers the service reported in this shield's last answer: a
    /// raise's answer says how its layers stand after it, so `reach` right
    /// after a raise (every `start`) needs no request of its own.
    private let reported = LastReport()
    /// The user's `unlock` as a strict block is raised: the service keeps it
    /// with the block and applies it (nil: the passcode rule).
    public let unlock: UnlockMethod?

    public init(socketPath: String, unlock: UnlockMethod? = nil) {
        client = ShieldClient(socketPath: socketPath)
        self.unlock = unlock
    }

    /// Sends `request`, keeping the layers its answer reports.
    private func send(_ request: ShieldProtocol.Request) throws(HeldBlockError) -> ShieldProtocol.Answer {
        let answer = try client.send(request)
        if let layers = answer.layers { reported.layers.withLock { $0 = layers } }
        return answer
    }

    /// The layers as the service reported them last, or as it reports them now.
    private func layers() -> [ShieldProtocol.Layer] {
        if let known = reported.layers.withLock({ $0 }) { return known }
        return (try? send(.init(op: .status)))?.layers ?? []
    }

    public var identity: String { Self.identityPrefix + client.socketPath }

    /// Sites, by its hosts and firewall layers; apps while its app layer is
    /// on; and every layer that fails to enforce the blocks now. One status
    /// request: what the service itself reports, not what it was meant to do.
    public func reach(askingAboutApps: Bool) async -> ShieldReach {
        let layers = layers().map(\.report)
        let apps = layers.contains { $0.name == "apps" && $0.active }
        return ShieldReach(sites: true, apps: askingAboutApps ? (apps ? .blocked : .layerOff) : nil,
                           failing: layers.compactMap { layer in layer.failure.map { "\(layer.name): \($0)" } },
                           subdomains: layers.contains { $0.name == "names" && $0.active })
    }

    public func raise(_ targets: [Target], for session: Session) async throws {
        let length = session.plannedEnd.map { $0.timeIntervalSince(session.startedAt) }
        _ = try send(.init(op: .raise, session: session.id, targets: targets.map(\.description), strict: session.strict,
                           plannedEnd: session.plannedEnd, length: length,
                           unlock: session.strict ? (session.unlock ?? unlock).map(\.description) : nil, group: session.groupId.description,
                           allowance: session.dailyAllowance, cycle: session.strict ? session.cycle : nil,
                           startedAt: session.strict ? session.startedAt : nil))
    }

    /// A block with no session's terms: open-ended, not strict.
    public func raise(_ targets: [Target], for session: SessionID) async throws {
        _ = try send(.init(op: .raise, session: session, targets: targets.map(\.description), strict: false))
    }

    public func lower(for session: SessionID) async throws {
        try await lower(for: session, passcode: nil)
    }

    /// The service decides: a strict block whose time is not up is lowered
    /// only with the passcode the service keeps for this user.
    public func lower(for session: SessionID, passcode: Passcode?) async throws {
        try await lower(for: session, passcode: passcode, typed: nil)
    }

    /// The service applies the unlock rule it keeps with the block.
    public func lower(for session: SessionID, passcode: Passcode?, typed: Int?) async throws {
        _ = try send(.init(op: .lower, session: session, passcode: passcode?.text, typed: typed))
    }

    public func requestUnlock(for session: SessionID) async throws -> Date? {
        try send(.init(op: .requestUnlock, session: session)).until
    }

    public func withdrawUnlock(for session: SessionID) async throws {
        _ = try send(.init(op: .withdrawUnlock, session: session))
    }

    /// The service issues the text and checks it itself.
    public func typingChallenge(for session: SessionID) async throws -> String? {
        try send(.init(op: .typingChallenge, session: session)).challenge
    }

    public func typedBack(_ text: String, for session: SessionID) async throws {
        _ = try send(.init(op: .typedBack, session: session, typedText: text))
    }

    /// The service counts the allowance by its own ledger, lowers the
    /// block and raises it again at the end itself.
    public func allow(for session: SessionID, length: TimeInterval, daily: TimeInterval?) async throws -> Date? {
        try send(.init(op: .allow, session: session, length: length, allowance: daily)).until
    }

    /// Whether the service's app layer is on (it terminates blocked apps).
    public func blocksApps() -> Bool {
        layers().contains { $0.report.name == "apps" && $0.report.active }
    }

    /// The block the service holds for this user; one that root released
    /// stands as the session's (released, enforced by nothing), so no
    /// command raises it again.
    public func state() async throws -> ShieldState? {
        // A block down for an allowance the service counts, or for a break
        // of the cycle it keeps, is down.
        let blocks = (try send(.init(op: .status)).blocks ?? []).filter { $0.allowanceUntil == nil && $0.breakUntil == nil && $0.lowered != true }
        guard let block = blocks.first(where: { $0.released != true }) ?? blocks.first else { return nil }
        return ShieldState(session: block.session, targets: block.targets.compactMap { try? Target(parsing: $0) },
                           released: block.released == true, strict: block.strict)
    }
}

extension SystemShield: ShieldAuthorizationProbe {
    /// Approved when the service answers.
    public func authorization() async -> ShieldAuthorization {
        client.isReachable() ? .approved : .denied
    }
}

/// The layers of a `SystemShield`'s last answer, shared by its copies.
private final class LastReport: Sendable {
    let layers = Mutex<[ShieldProtocol.Layer]?>(nil)
}
