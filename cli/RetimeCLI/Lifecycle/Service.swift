import FoundationEssentials

/// A part of a long-running process with a lifetime, in the shape of
/// swift-service-lifecycle's `Service`: a `ServiceGroup` runs it, and it
/// returns when its work is done or the group asks it to stop
/// (`ServiceLifecycle`). The daemon and the system service are each a list
/// of these.
protocol Service: Sendable {
    /// What it is, for logs and errors.
    var name: String { get }
    /// Whether the next service of the group waits until this one calls
    /// `ServiceLifecycle.started()` (a lock taken, services built); when
    /// false the next starts at once.
    var announcesStart: Bool { get }
    /// Does the service's work: returns when it is done or told to stop.
    func run() async throws
}

extension Service {
    var announcesStart: Bool { false }
}

/// Why a group ended other than by its services' own failures.
struct ServiceGroupError: Error, CustomStringConvertible {
    var description: String

    /// A service that had not returned `deadline` after it was told to
    /// stop: cancelled and left behind, so the process can still exit.
    static func shutdownTimedOut(_ name: String, after deadline: Duration) -> ServiceGroupError {
        ServiceGroupError(description: "the service '\(name)' did not stop within \(deadline) of being asked; it was cancelled")
    }
}
