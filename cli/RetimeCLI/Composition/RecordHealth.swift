import Domain

/// `doctor`'s findings on how groups and schedules stand together, which a
/// data folder shared between devices can leave as one device alone never
/// would. A warning, never an error: everything keeps working.
///
/// - "names": a group or schedule name held by two records. Names are
///   unique on one device, but two devices that made one name before they
///   saw each other made two records (each device edits only records it
///   has seen, so neither can weaken the other's, a strict session's group
///   least of all). Commands find the same one on every device
///   (docs/storage.md, "One name made on two devices"); the warning says
///   how to part them.
/// - "schedules": a schedule whose group is gone, deleted on one device
///   while another added the schedule (the delete's check saw no schedule
///   there). The daemon passes it over, saying so in its log.
struct RecordHealth: HealthInspector {
    let groups: @Sendable () async throws -> [GroupID: String]
    let schedules: @Sendable () async throws -> [Schedule]

    func inspect(repairing: Bool) async -> [HealthCheck] {
        let groups: [GroupID: String], schedules: [Schedule]
        do {
            (groups, schedules) = (try await self.groups(), try await self.schedules())
        } catch {
            // What cannot be read is the data checks' finding; this one says
            // only that it could not look.
            let detail = "cannot read the groups and schedules: \(error)"
            return [HealthCheck(name: "names", status: .warning, detail: detail), HealthCheck(name: "schedules", status: .warning, detail: detail)]
        }
        return [names(groups: groups, schedules: schedules), orphans(groups: groups, schedules: schedules)]
    }

    private func names(groups: [GroupID: String], schedules: [Schedule]) -> HealthCheck {
        var findings: [String] = []
        for (name, count) in NameRules.heldTwice(groups.values) {
            findings.append("\(count) groups are named '\(name)' ('retime group rename \(GroupCommands.shellWord(name)) NEW' renames the one commands find)")
        }
        for (name, count) in NameRules.heldTwice(schedules.map(\.name)) {
            findings.append("\(count) schedules are named '\(name)' (each fires; 'retime schedule remove \(GroupCommands.shellWord(name))' removes the one commands find)")
        }
        guard findings.isEmpty else { return HealthCheck(name: "names", status: .warning, detail: findings.joined(separator: "; ")) }
        return HealthCheck(name: "names", status: .ok, detail: "every group and schedule name is held once")
    }

    private func orphans(groups: [GroupID: String], schedules: [Schedule]) -> HealthCheck {
        let orphans = schedules.filter { groups[$0.groupId] == nil }.map(\.name).sorted { NameRules.comparisonKey($0) < NameRules.comparisonKey($1) }
        guard orphans.isEmpty else {
            return HealthCheck(name: "schedules", status: .warning,
                               detail: orphans.map { "schedule '\($0)' runs a group that is gone (deleted on another device meanwhile): "
                                   + "'retime schedule remove \(GroupCommands.shellWord($0))', then add it on a group" }.joined(separator: "; "))
        }
        return HealthCheck(name: "schedules", status: .ok,
                           detail: schedules.isEmpty ? "no schedules" : "every schedule's group is there")
    }
}
