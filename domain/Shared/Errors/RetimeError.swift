import FoundationEssentials

/// What every error the domain throws can say about itself, so that any
/// composition root can map it to a stable code and an exit status without
/// knowing the context it came from.
public protocol RetimeError: Error, CustomStringConvertible {
    /// A stable identifier, `context.case`, e.g. `group.notFound`.
    var code: String { get }
    /// Which family of failure this is; decides the exit code.
    var kind: ErrorKind { get }
    /// The message, with each instant it names written by `instant`: the
    /// domain knows no time zone and writes ISO 8601 in UTC (`description`),
    /// a composition root may show people their own clock instead.
    func message(writingInstants instant: (Date) -> String) -> String
}

extension RetimeError {
    /// Errors that name no instant say what `description` says.
    public func message(writingInstants instant: (Date) -> String) -> String { description }
}

/// How the domain writes an instant in a message: ISO 8601, UTC.
public func utcInstant(_ date: Date) -> String { date.formatted(.iso8601) }

/// The families of failure that the CLI contract distinguishes (exit codes 1-4).
public enum ErrorKind: Sendable, Equatable, CaseIterable {
    /// The operation failed for a domain reason: not found, already active, in use.
    case domain
    /// A value given by the caller is malformed: a bad name, target or duration.
    case invalidInput
    /// A passcode or a strict session stands in the way.
    case authorization
    /// Data could not be read or written.
    case storage
}
