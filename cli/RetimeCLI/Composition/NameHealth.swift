import Domain

/// `doctor`'s "names" finding: a group or schedule name held by two
/// records. Names are unique on one device, and one name made on two
/// devices is one record (its id is named after it); two records can still
/// share a name when they were made with random ids, by a retime before
/// that, or under a name a renamed record's id holds. Commands find the
/// one with the smaller id on every device; the warning says how to part
/// them. A warning, never an error: both keep working.
struct NameHealth: HealthInspector {
    let groupNames: @Sendable () async throws -> [String]
    let scheduleNames: @Sendable () async throws -> [String]

    func inspect(repairing: Bool) async -> [HealthCheck] {
        var findings: [String] = []
        // What cannot be read is the data checks' finding; this one says only
        // that it could not look.
        do {
            for name in NameRules.heldTwice(try await groupNames()) {
                findings.append("two groups are named '\(name)' ('retime group rename \(name) NEW' renames the one commands find)")
            }
        } catch {
            findings.append("cannot read the groups' names: \(error)")
        }
        do {
            for name in NameRules.heldTwice(try await scheduleNames()) {
                findings.append("two schedules are named '\(name)' (both fire; 'retime schedule remove \(name)' removes the one commands find)")
            }
        } catch {
            findings.append("cannot read the schedules' names: \(error)")
        }
        guard findings.isEmpty else { return [HealthCheck(name: "names", status: .warning, detail: findings.joined(separator: "; "))] }
        return [HealthCheck(name: "names", status: .ok, detail: "every group and schedule name is held once")]
    }
}
