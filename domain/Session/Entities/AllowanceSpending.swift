import FoundationEssentials
import RetimeGroup
import RetimeShared

/// What one device spent of one group's allowance on one of its local days.
/// Only that device ever writes it, so devices sharing a data folder never
/// conflict over it; what a group has spent on a day is the sum over devices.
public struct AllowanceSpending: Hashable, Sendable, Codable {
    public let group: GroupID
    public let device: String
    /// The local day of the device, as days since 1970-01-01.
    public let day: Int64
    public var seconds: TimeInterval
    /// When it last changed, on both clocks: the device's next allowance
    /// counts its local day on from here by the boot-time clock (`AllowanceDay`).
    public var at: Date
    public var boot: BootTimeReading?

    public init(group: GroupID, device: String, day: Int64, seconds: TimeInterval, at: Date, boot: BootTimeReading?) {
        self.group = group
        self.device = device
        self.day = day
        self.seconds = seconds
        self.at = at
        self.boot = boot
    }
}

extension Array where Element == AllowanceSpending {
    /// What every device spent on local day `day`.
    public func spent(on day: Int64) -> TimeInterval {
        filter { $0.day == day }.reduce(0) { $0 + Swift.max(0, $1.seconds) }
    }
}
