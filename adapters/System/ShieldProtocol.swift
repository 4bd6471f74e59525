import Domain
import FoundationEssentials
#if canImport(Glibc)
import Glibc
#endif

/// The system service's wire format: one JSON request and one JSON answer,
/// each a line, each with a `version` (cli.md, "The system service"). The
/// caller is never named in a request: the service asks the kernel.
public enum ShieldProtocol {
    public static let version = 1
    /// The longest request line the service reads.
    public static let maximumRequest = 64 * 1024
    /// The most targets one `inspect` asks about. The loop answers one
    /// request at a time, so a request's cost is what another user may
    /// wait: 4,000 targets took 0.2 s to answer (1.1 MB), 1,000 a quarter
    /// of it. Clients ask in parts (`LiveShieldInspector`).
    public static let maximumInspected = 1_000
    /// How long a client may take to send its request.
    public static let requestTimeout: Double = 5
    /// How long a client may stay connected before sending its first byte.
    public static let idleTimeout: Double = 2

    public enum Operation: String, Codable, Sendable {
        case raise, lower, status, release, setPasscode, changePasscode, removePasscode
        /// Checks the caller's passcode under the service's lockout and
        /// audit (one counted attempt): the user's data keeps no hash to check.
        case verifyPasscode
        /// What each layer says about the caller's `targets` now (`shield test`).
        case inspect
        /// Starts the countdown to lower a strict block early (`unlock
        /// delay:`); the answer's `until` says when it runs out.
        case requestUnlock
        /// Cancels it (`stop --withdraw`).
        case withdrawUnlock
        /// Lowers the caller's block of `session` for an allowance the
        /// service counts (`retime allow`): `length` seconds, or what is
        /// left today; the answer's `until` says when it is raised again,
        /// `left` what is left today.
        case allow
        /// `unlock typing:N`: the service issues random text for the
        /// caller's strict block of `session` (the answer's `challenge`),
        /// one at a time per user, expiring; it keeps it to check.
        case typingChallenge
        /// The text typed back for that challenge (`typedText`): when it
        /// matches, the next early `lower` within a minute is admitted.
        case typedBack
    }

    public struct Request: Codable, Sendable, Equatable {
        public var version: Int
        public var op: Operation
        public var session: SessionID?
        public var targets: [String]?
        public var strict: Bool?
        public var plannedEnd: Date?
        public var length: Double?
        /// `release`: the user whose blocks to lift; nil with `all`.
        public var uid: UInt32?
        public var all: Bool?
        /// The caller's passcode: to lower a strict block early, or to
        /// change or remove the passcode (the local socket only; never argv).
        public var passcode: String?
        public var newPasscode: String?
        /// `raise` of a strict block: how it may be lowered early (config
        /// `unlock`, e.g. `delay:5m`), kept with the block by the service.
        public var unlock: String?
        /// `lower`: how many characters were typed back (`unlock typing:N`).
        public var typed: Int?
        /// `raise`: the session's group (what an allowance is spent of).
        public var group: String?
        /// `raise` and `allow`: the group's daily allowance in seconds, as
        /// its user has it (a strict block keeps the one it was raised with).
        public var allowance: Double?
        /// `raise` of a strict block: its session's fixed focus cycle and
        /// start, which the service keeps to lower the block at each break.
        public var cycle: Cycle?
        public var startedAt: Date?
        /// `typedBack`: the text typed back.
        public var typedText: String?

        public init(op: Operation, session: SessionID? = nil, targets: [String]? = nil, strict: Bool? = nil,
                    plannedEnd: Date? = nil, length: Double? = nil, uid: UInt32? = nil, all: Bool? = nil,
                    passcode: String? = nil, newPasscode: String? = nil, unlock: String? = nil, typed: Int? = nil,
                    group: String? = nil, allowance: Double? = nil, cycle: Cycle? = nil, startedAt: Date? = nil,
                    typedText: String? = nil) {
            self.typedText = typedText
            self.cycle = cycle
            self.startedAt = startedAt
            self.group = group
            self.allowance = allowance
            self.unlock = unlock
            self.typed = typed
            self.version = ShieldProtocol.version
            self.op = op
            self.session = session
            self.targets = targets
            self.strict = strict
            self.plannedEnd = plannedEnd
            self.length = length
            self.uid = uid
            self.all = all
            self.passcode = passcode
            self.newPasscode = newPasscode
        }
    }

    /// A block as the answer lists it.
    public struct Block: Codable, Sendable, Equatable {
        public var uid: UInt32
        public var session: SessionID
        public var targets: [String]
        public var strict: Bool
        public var plannedEnd: Date?
        public var endsAfterSeconds: Double?
        /// Root released it: enforced by nothing, kept so its session is
        /// not raised again (absent from services before releases were kept).
        public var released: Bool?
        /// An allowance the service counts runs until then: the block is
        /// down, and the service raises it again at that instant.
        public var allowanceUntil: Date?
        /// A break of the strict block's cycle runs until then: the block
        /// is down, and the service raises it again at that instant.
        public var breakUntil: Date?
        /// Its user lowered this strict block early (a pause or a stop):
        /// enforced by nothing, kept so a resume raises it under its rule.
        public var lowered: Bool?
    }

    public struct Failure: Codable, Sendable, Equatable {
        public var code: String
        public var message: String
        /// For a strict refusal: when the block's time is up.
        public var until: Date?
    }

    public struct Answer: Codable, Sendable, Equatable {
        public var version: Int
        public var ok: Bool
        public var blocks: [Block]?
        public var layers: [Layer]?
        /// `inspect`: per target asked about, each layer's finding.
        public var checks: [[LayerCheck]]?
        public var error: Failure?
        /// `status`: whether the service holds a passcode for the caller,
        /// the wrong attempts in a row and the lock they earned.
        public var passcodeSet: Bool?
        public var passcodeFailedAttempts: Int?
        public var passcodeLockedUntil: Date?
        /// `requestUnlock`: when the countdown runs out; absent when the
        /// block has no countdown rule.
        public var until: Date?
        /// `allow`: the seconds of today's allowance left after it.
        public var left: Double?
        /// `typingChallenge`: the text to type back.
        public var challenge: String?

        public init(ok: Bool, blocks: [Block]? = nil, layers: [LayerReport]? = nil, checks: [[LayerCheck]]? = nil,
                    error: Failure? = nil, passcodeSet: Bool? = nil) {
            self.passcodeSet = passcodeSet
            self.version = ShieldProtocol.version
            self.ok = ok
            self.blocks = blocks
            self.layers = layers?.map(Layer.init)
            self.checks = checks
            self.error = error
        }

        public static func failure(_ error: any RetimeError) -> Answer {
            var until: Date?
            switch error as? HeldBlockError {
            case .strict(let end)?, .anotherStrictBlock(let end)?: until = end
            case .countdown(let end)?, .allowanceRunning(let end)?: until = end
            // When to ask again: the client waits a short wait out.
            case .slowDown(let seconds)?: until = Date().addingTimeInterval(seconds)
            default: break
            }
            return Answer(ok: false, error: Failure(code: error.code, message: error.description, until: until))
        }
    }

    /// A layer as `status` lists it. A service from before layers were
    /// described sent only their names; those still read.
    public struct Layer: Codable, Sendable, Equatable {
        public var report: LayerReport

        init(_ report: LayerReport) { self.report = report }

        public init(from decoder: any Decoder) throws {
            if let name = try? decoder.singleValueContainer().decode(String.self) {
                report = LayerReport(name: name, active: true, detail: "")
            } else {
                report = try LayerReport(from: decoder)
            }
        }

        public func encode(to encoder: any Encoder) throws { try report.encode(to: encoder) }
    }

    /// A line of JSON for `value`, newline included.
    public static func line<T: Encodable>(_ value: T) throws -> [UInt8] {
        try JSONText.line(value)
    }

    /// Reads one value from a line (its newline, if any, dropped).
    public static func decode<T: Decodable>(_ type: T.Type, from line: [UInt8]) throws(HeldBlockError) -> T {
        do {
            return try JSONValueCoding.decode(type, from: try JSONText.parse(Array(line.prefix { $0 != 0x0A })))
        } catch {
            throw .badRequest("not a \(type == Request.self ? "request" : "answer") of protocol version \(version)")
        }
    }

    static func block(_ block: HeldBlock, at now: Date) -> Block {
        Block(uid: block.uid, session: block.session, targets: block.targets.map(\.description), strict: block.strict,
              plannedEnd: block.plannedEnd,
              endsAfterSeconds: block.isReleased ? 0 : block.end(at: now).map { max(0, $0.timeIntervalSince(now)) },
              released: block.isReleased ? true : nil,
              allowanceUntil: block.allowance.map { $0.end(at: now, boot: nil) },
              breakUntil: block.breakNow(at: now)?.end, lowered: block.loweredAt == nil ? nil : true)
    }
}
