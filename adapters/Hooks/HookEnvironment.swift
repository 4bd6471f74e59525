import Domain
import FoundationEssentials
#if canImport(Glibc)
import Glibc
#endif

/// The environment a hook runs with (cli.md, "Hooks"): the caller's own,
/// plus the event's `RETIME_*` variables. Unknown values are empty strings,
/// so a hook can rely on every variable being set.
enum HookEnvironment {
    static func variables(for event: SessionEvent) -> [String: String] {
        var variables = [
            "RETIME_EVENT": event.kind.rawValue,
            "RETIME_SESSION_ID": event.sessionId?.description ?? "",
            "RETIME_GROUP": event.groupName ?? "",
            "RETIME_TARGETS": event.targets.map(\.description).joined(separator: "\n"),
            "RETIME_PLANNED_END": event.plannedEnd.map { Timestamp.format($0) } ?? "",
            "RETIME_AT": Timestamp.format(event.at),
            "RETIME_ORIGIN": event.origin.description,
        ]
        // Beyond the spec's list: how a session ended, which warning this is.
        if let outcome = event.outcome { variables["RETIME_OUTCOME"] = outcome.rawValue }
        if let warning = event.warning { variables["RETIME_INTERVAL_EVENT"] = warning.rawValue }
        if let phase = event.phase {
            variables["RETIME_PHASE"] = phase.kind.rawValue
            variables["RETIME_ROUND"] = "\(phase.round)"
        }
        return variables
    }

    static func environment(for event: SessionEvent, inheriting base: [String: String]) -> [String: String] {
        base.filter { !$0.key.hasPrefix("RETIME_") || $0.key == "RETIME_HOME" }
            .merging(variables(for: event)) { _, event in event }
    }
}
