import Foundation

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

    /// What to call each group of `spans`: its name now; for a deleted
    /// group, the last name it ran under, marked deleted; and where its
    /// sessions ran under other names, those too ("deepwork (was work)",
    /// "thesis (deleted; was writing)").
    func labels(of spans: [SessionSpan]) async throws -> [GroupID: String] {
        let current = try await groups.groupNames()
        var byGroup: [GroupID: [SessionSpan]] = [:]
        for span in spans { byGroup[span.groupId, default: []].append(span) }
        var labels: [GroupID: String] = [:]
        for (id, runs) in byGroup {
            let latest = runs.max { $0.startedAt < $1.startedAt }?.groupName
            let name = current[id] ?? latest ?? "(deleted group)"
            var former: [String] = []
            for run in runs.sorted(by: { $0.startedAt < $1.startedAt }) {
                if let then = run.groupName, then != name, !former.contains(then) { former.append(then) }
            }
            let notes = [current[id] == nil && latest != nil ? "deleted" : nil,
                         former.isEmpty ? nil : "was " + former.joined(separator: ", ")].compactMap { $0 }
            labels[id] = name + (notes.isEmpty ? "" : " (" + notes.joined(separator: "; ") + ")")
        }
        return labels
    }
}
