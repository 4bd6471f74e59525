import Domain
import FoundationEssentials

/// Presence where no source is followed: says why, and hears nothing. The
/// daemon then records no idle or lock stretches; suspended time is still
/// told by the clocks (`BootTimeReading.suspended`).
public struct UnavailablePresenceSignals: PresenceSignals {
    public let reason: String

    public init(reason: String) {
        self.reason = reason
    }

    public func availability() async -> PresenceAvailability { .unavailable(reason: reason) }

    public func changes() -> AsyncStream<PresenceChange> {
        let (stream, continuation) = AsyncStream<PresenceChange>.makeStream()
        continuation.finish()
        return stream
    }
}
