import FoundationEssentials
import RetimeShared

/// The clock of the device that started a session, as this machine reads
/// it: its own clock moved by how far the other one's is estimated to be
/// (`SessionClocks`). A session started on a device whose clock disagrees
/// with this one's is judged, and its instants written, on its own
/// device's clock: a machine whose clock runs an hour fast neither ends it
/// an hour early nor records a break an hour after it began.
public struct StarterClock: Clock {
    let base: any Clock
    /// The other device's clock minus this one's.
    public let offset: TimeInterval

    public init(base: any Clock, offset: TimeInterval) {
        self.base = base
        self.offset = offset
    }

    public func now() -> Date { base.now().addingTimeInterval(offset) }

    /// This machine's boot-time clock: a session started elsewhere holds
    /// another boot's deadline, which the wall clock (this one, moved)
    /// decides (`StrictTime`).
    public func bootTime() -> BootTimeReading? { base.bootTime() }

    public func sleep(until deadline: Date) async throws {
        try await base.sleep(until: deadline.addingTimeInterval(-offset))
    }
}
