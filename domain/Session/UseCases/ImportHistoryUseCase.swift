/// `retime import`: adds another tool's sessions to history. Idempotent:
/// sessions whose ids history already holds are left alone, so importing
/// the same data twice adds nothing. Nothing already in history is changed;
/// groups are found by name and created when missing.
public struct ImportHistoryUseCase: Sendable {
    private let history: any SessionHistory
    private let directory: any ImportGroupDirectory

    public init(history: any SessionHistory, directory: any ImportGroupDirectory) {
        self.history = history
        self.directory = directory
    }

    public func execute(from source: any HistoryImportSource, path: String) async throws -> ImportSummary {
        let batch = try await source.read(path)
        var known = Set(try await history.spans(matching: .all).map(\.id))
        var groups: [String: GroupID] = [:]
        var created: [String] = []
        var problems = batch.problems
        var fresh: [Session] = []
        var alreadyPresent = 0
        for record in batch.records {
            guard known.insert(record.session.id).inserted else {
                alreadyPresent += 1
                continue
            }
            let key = record.groupName.lowercased()
            if groups[key] == nil {
                do {
                    let found = try await directory.group(named: record.groupName, preferredId: record.groupId,
                                                          targets: record.groupTargets)
                    groups[key] = found.id
                    if found.created { created.append(record.groupName) }
                } catch let error as GroupError {
                    let file = record.file.map { $0 + ": " } ?? ""
                    problems.append(.init(line: record.line, message: "\(file)no group for '\(record.groupName)': \(error)"))
                    continue
                }
            }
            fresh.append(record.session.inGroup(groups[key]!))
        }
        try await history.append(contentsOf: fresh)
        return ImportSummary(read: batch.records.count, imported: fresh.count, alreadyPresent: alreadyPresent,
                             groupsCreated: created, problems: problems.sorted { $0.line < $1.line })
    }
}

private extension Session {
    /// The same session, filed under `group` (the id history knows the name by).
    func inGroup(_ group: GroupID) -> Session {
        Session(id: id, groupId: group, startedAt: startedAt, plannedEnd: plannedEnd, endedAt: endedAt, outcome: outcome,
                strict: strict, breaks: breaks, tags: tags, note: note, origin: origin, bootDeadline: bootDeadline)
    }
}
