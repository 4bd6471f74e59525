import FoundationEssentials
import RetimeGroup
import RetimeShared

/// Where what was spent of each group's allowance is kept: one record per
/// device, group and local day, written only by its device (a data folder
/// shared by devices never conflicts over it), read summed over devices.
public protocol AllowanceLedger: Sendable {
    /// Every device's spending of `group`'s allowance.
    func spending(of group: GroupID) async throws -> [AllowanceSpending]
    /// Every device's spending of every group's allowance (`report`).
    func allSpending() async throws -> [AllowanceSpending]
    /// Adds `seconds` (negative: gives back what was not used) to `device`'s
    /// spending of `group` on `day`, stamped `at` and `boot`; never below zero.
    func spend(_ seconds: TimeInterval, of group: GroupID, by device: String, on day: Int64, at: Date, boot: BootTimeReading?) async throws
}
