import FoundationEssentials
import RetimeGroup
import RetimeShared
import RetimeSync

/// What is left of a group's allowance today, counted the one way `allow`,
/// `status` and `group show` all use: this device's local day
/// (`AllowanceDay`), every device's spending on it summed.
public struct AllowanceBook: Sendable {
    let ledger: any AllowanceLedger
    let devices: any DeviceDirectory
    let clock: any Clock
    let zone: @Sendable () -> TimeZoneRules

    public init(ledger: any AllowanceLedger, devices: any DeviceDirectory, clock: any Clock, zone: @escaping @Sendable () -> TimeZoneRules) {
        self.ledger = ledger
        self.devices = devices
        self.clock = clock
        self.zone = zone
    }

    /// A group's allowance as it stands today.
    public struct Standing: Hashable, Sendable {
        /// This device's local day, as days since 1970-01-01.
        public let day: Int64
        /// What every device spent of it that day.
        public let spent: TimeInterval
        /// What is left of `allowance` that day.
        public let left: TimeInterval
    }

    /// `group`'s `allowance` as it stands now on this device.
    public func standing(of group: GroupID, allowance: TimeInterval) async throws -> Standing {
        let spending = try await ledger.spending(of: group)
        let device = try devices.thisDevice()
        let last = spending.filter { $0.device == device }.max { $0.at < $1.at }
        let day = AllowanceDay.today(at: clock.now(), boot: clock.bootTime(), lastSpending: last, in: zone())
        let spent = spending.spent(on: day)
        return Standing(day: day, spent: spent, left: max(0, allowance - spent))
    }

    /// Records `seconds` spent (negative: given back) on `day` by this device.
    func spend(_ seconds: TimeInterval, of group: GroupID, on day: Int64) async throws {
        try await ledger.spend(seconds, of: group, by: try devices.thisDevice(), on: day, at: clock.now(), boot: clock.bootTime())
    }
}
