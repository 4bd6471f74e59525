import Domain

/// `doctor`'s "names" finding: a group or schedule name held by two
/// records. Names are unique on one device, but two devices that made one
/// name before they saw each other made two records (each device edits
/// only records it has seen, so neither can weaken the other's, a strict
/// session's group least of all). Commands find the same one on every
/// device (docs/storage.md, "One name made on two devices"); the warning
/// says how to part them. A warning, never an error: both keep working.
struct NameHealth: HealthInspector {
    let groupNames: @Sendable () async throws -> [String]
    let scheduleNames: @Sendable () async throws -> [String]

    func inspect(repairing: Bool) async -> [HealthCheck] {
        var findings: [String] = []
        // What cannot be read is the data checks' finding; this one says only
        // that it could not look.
        do {
            for (name, count) in NameRules.heldTwice(try await groupNames()) {
                findings.append("\(count) groups are named '\(name)' ('retime group rename \(name) NEW' renames the one commands find)")
            }
        } catch {
            findings.append("cannot read the groups' names: \(error)")
        }
        do {
            for (name, count) in NameRules.heldTwice(try await scheduleNames()) {
                findings.append("\(count) schedules are named '\(name)' (each fires; 'retime schedule remove \(name)' removes the one commands find)")
            }
        } catch {
            findings.append("cannot read the schedules' names: \(error)")
        }
        guard findings.isEmpty else { return [HealthCheck(name: "names", status: .warning, detail: findings.joined(separator: "; "))] }
        return [HealthCheck(name: "names", status: .ok, detail: "every group and schedule name is held once")]
    }
}
