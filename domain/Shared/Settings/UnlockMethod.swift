import FoundationEssentials

/// How a strict session may be ended (or paused) before its time is up: the
/// config key `unlock` (cli.md, "Ending a strict session early"). Friction
/// rather than a password: a countdown, text typed back, or no way at all.
public enum UnlockMethod: Hashable, Sendable, Codable, CustomStringConvertible {
    /// The passcode overrides the refusal; with none set there is no early end.
    case passcode
    /// Asking starts a countdown of this many seconds; the stop or pause
    /// happens when it runs out, unless it is withdrawn.
    case delay(TimeInterval)
    /// This many random letters and digits, shown on the terminal, must be
    /// typed back exactly.
    case typing(Int)
    /// No early end at all, not even with the passcode.
    case never

    /// The method in force when `unlock` is not set: today's behaviour.
    public static let standard = UnlockMethod.passcode
    /// The bounds of `typing:N`: shorter is no friction, longer nobody types.
    public static let typingLengths = 16...512
    /// The bounds of `delay:DURATION`: a second to a day, as a session's length.
    public static let delays: ClosedRange<TimeInterval> = 1...86_400

    /// Parses the config value: `passcode`, `delay:DURATION` (`90s`, `5m`,
    /// `1h30m`, `PT5M`), `typing:N` or `never`. Throws why it is not one.
    public init(parsing text: String) throws(UnlockMethodError) {
        let trimmed = text.trimmedSpaces.lowercased()
        let (name, argument): (Substring, Substring?) = if let colon = trimmed.firstIndex(of: ":") {
            (trimmed[..<colon], trimmed[trimmed.index(after: colon)...])
        } else { (trimmed[...], nil) }
        switch (name, argument) {
        case ("passcode", nil): self = .passcode
        case ("never", nil): self = .never
        case ("delay", let argument?):
            guard let seconds = Self.seconds(of: String(argument)) else {
                throw .init(reason: "the delay '\(argument)' is not a duration; write it like delay:90s, delay:5m or delay:1h30m")
            }
            guard Self.delays.contains(seconds) else { throw .init(reason: "the delay must be from 1s to 24h") }
            self = .delay(seconds.rounded())
        case ("typing", let argument?):
            guard let count = Int(argument), Self.typingLengths.contains(count) else {
                throw .init(reason: "typing:N needs N from \(Self.typingLengths.lowerBound) to \(Self.typingLengths.upperBound)")
            }
            self = .typing(count)
        default:
            throw .init(reason: "expected passcode, delay:DURATION, typing:N or never")
        }
    }

    /// The stored form, which `init(parsing:)` reads back.
    public var description: String {
        switch self {
        case .passcode: "passcode"
        case .never: "never"
        case .typing(let count): "typing:\(count)"
        case .delay(let seconds): "delay:" + Self.compact(seconds)
        }
    }

    /// `1H30M15S` (or `PT...`) in seconds; units descending, each once.
    static func seconds(of text: String) -> TimeInterval? {
        let upper = text.uppercased()
        let body = upper.hasPrefix("PT") ? upper.dropFirst(2) : upper[...]
        guard !body.isEmpty else { return nil }
        var total: TimeInterval = 0, number = ""
        var remaining: [Character] = ["H", "M", "S"]
        for character in body {
            if character.isASCII && (character.isNumber || character == ".") {
                number.append(character)
                continue
            }
            guard let position = remaining.firstIndex(of: character), number.count <= 9, let value = Double(number), value.isFinite else {
                return nil
            }
            total += value * (character == "H" ? 3_600 : character == "M" ? 60 : 1)
            remaining.removeFirst(position + 1)
            number = ""
        }
        return number.isEmpty ? total : nil
    }

    /// `1h30m`, `45s`: whole seconds, no spaces, as `delay:` is written.
    static func compact(_ seconds: TimeInterval) -> String {
        let total = Int(seconds.rounded())
        let hours = total / 3_600, minutes = total / 60 % 60, secs = total % 60
        let text = (hours > 0 ? "\(hours)h" : "") + (minutes > 0 ? "\(minutes)m" : "") + (secs > 0 ? "\(secs)s" : "")
        return text.isEmpty ? "0s" : text
    }
}

extension UnlockMethod {
    /// Stored as its config value (`delay:5m`), as the system service keeps it with a block.
    public init(from decoder: any Decoder) throws {
        let text = try decoder.singleValueContainer().decode(String.self)
        do { self = try UnlockMethod(parsing: text) } catch {
            throw DecodingError.dataCorrupted(.init(codingPath: decoder.codingPath, debugDescription: error.reason))
        }
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(description)
    }
}

/// Why a value of `unlock` is not an unlock method.
public struct UnlockMethodError: Error, Equatable, Sendable {
    public let reason: String
}
