import FoundationEssentials
import RetimeGroup
import RetimeSession

/// Groups as history knows them: by identity, not by name. A group renamed
/// or deleted still has its sessions, under the id they ran on; `--group`
/// may name it by its name now, or by a name history still carries.
struct HistoryGroups {
    let groups: any SessionGroupLookup
    let history: any SessionHistory

    /// The group `name` names: the one with that name now, else the one that
    /// last ran under it (since renamed, or deleted). Throws
    /// `SessionError.groupNotFound` when neither is.
    func id(named name: String?) async throws -> GroupID? {
        guard let name else { return nil }
        if let id = try await groups.groupID(named: name) { return id }
        let key = name.lowercased()
        let spans = try await history.spans(matching: .all).filter { $0.groupName?.lowercased() == key }
        guard let latest = spans.max(by: { $0.startedAt < $1.startedAt }) else { throw SessionError.groupNotFound(name: name) }
        return latest.groupId
    }

    /// What to call each group of `spans` (cli.md, "History"): its name
    /// now, or, deleted, the last name it ran under.
    func labels(of spans: [SessionSpan]) async throws -> [GroupID: String] {
        let current = try await groups.groupNames()
        var labels: [GroupID: (name: String?, at: Date)] = [:]
        for span in spans where current[span.groupId] == nil && (labels[span.groupId].map { span.startedAt > $0.at } ?? true) {
            labels[span.groupId] = (span.groupName, span.startedAt)
        }
        return current.merging(labels.compactMapValues(\.name)) { now, _ in now }
    }
}
