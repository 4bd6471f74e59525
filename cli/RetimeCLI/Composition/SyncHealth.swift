import Domain

/// `doctor`'s "sync" finding: conflict copies and unreadable files of a
/// shared data folder, and devices far behind this one (docs/storage.md,
/// "Devices"). A warning, never an error: every device keeps working.
struct SyncHealth: HealthInspector {
    /// A device more than this far behind is worth a look.
    static let farBehind = 86_400
    let status: @Sendable () throws -> SyncStatus

    func inspect(repairing: Bool) async -> [HealthCheck] {
        let status: SyncStatus
        do { status = try self.status() } catch {
            return [HealthCheck(name: "sync", status: .warning, detail: "cannot survey the devices: \(error)")]
        }
        var findings: [String] = []
        if !status.conflicts.isEmpty {
            findings.append("\(status.conflicts.count) conflict \(status.conflicts.count == 1 ? "copy" : "copies") (merged as data): "
                + status.conflicts.prefix(3).joined(separator: ", ") + (status.conflicts.count > 3 ? ", …" : ""))
        }
        if !status.unreadable.isEmpty {
            findings.append("cannot read " + status.unreadable.prefix(3).joined(separator: ", ") + (status.unreadable.count > 3 ? ", …" : ""))
        }
        for entry in status.clocksOff {
            findings.append(SyncCommands.clockFinding(entry))
        }
        let behind = status.behind(moreThan: Self.farBehind)
        if !behind.isEmpty {
            findings.append("more than a day behind: " + behind.map { $0.name ?? $0.id }.joined(separator: ", "))
        }
        guard findings.isEmpty else {
            return [HealthCheck(name: "sync", status: .warning, detail: findings.joined(separator: "; ") + "; see 'retime sync status'")]
        }
        let others = status.devices.count - 1
        return [HealthCheck(name: "sync", status: .ok,
                            detail: others == 0 ? "one device, no conflict copies" : "\(others + 1) devices, none far behind, no conflict copies")]
    }
}
