/// A passcode as typed by the user. It crosses contexts (a strict refusal
/// in the Session, Group or settings rules can be overridden by one) but
/// never leaves memory in the clear: its description is redacted, so it
/// cannot end up in a log line, an error message or a tracked event.
public struct Passcode: Sendable, Equatable, CustomStringConvertible, CustomDebugStringConvertible {
    /// The secret itself, for the hasher only.
    public let text: String

    public init(_ text: String) { self.text = text }

    public var description: String { "<passcode>" }
    public var debugDescription: String { "<passcode>" }
}
