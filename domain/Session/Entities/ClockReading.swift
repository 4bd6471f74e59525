import FoundationEssentials
import RetimeShared

/// The wall clock and the boot-time and awake clocks read at one moment by
/// a process of the machine a session runs on: the machine was awake then.
/// Sleep the clocks tell of later lies after it (`Session.lastReading`).
public struct ClockReading: Hashable, Sendable, Codable {
    public var at: Date
    public var boot: BootTimeReading

    public init(at: Date, boot: BootTimeReading) {
        self.at = at
        self.boot = boot
    }
}
