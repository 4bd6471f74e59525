import FoundationEssentials
import RetimeGroup
import RetimeSchedule
import RetimeSession
import RetimeShared

/// `retime import`: adds another tool's sessions to history. Idempotent:
/// sessions whose ids history already holds are left alone, so importing
/// the same data twice adds nothing. An entry of Watson or Timewarrior that
/// was changed in its tool since (a tag, an annotation, its end) updates the
/// session it became, never adds a second: Watson's frames are matched by
/// their ids, Timewarrior's intervals (which have none) by their start,
/// which no two of its intervals share, or, when the start was moved, by the
/// one earlier interval, gone from the data, that it overlaps. Nothing else in history is changed;
/// groups are found by name and the missing ones created, all at once.
///
/// Only sessions history can hold are imported: each has an end after its
/// start, lasts at most 24 hours (`SessionLength.allowed`), and lies between 1970 and
/// 2200 (an instant outside is a misread timestamp, and would be written as
/// a line no reader takes). A session with the id of the session in the
/// slot is refused: history would later skip that session's own entry.
public struct ImportHistoryUseCase: Sendable {
    private let history: any SessionHistory
    private let directory: any ImportGroupDirectory
    private let active: ActiveSession
    /// Where a retime backup's schedules and settings go.
    private let schedules: (any ScheduleRepository)?
    private let settings: (any SettingsStore)?
    /// When an update is made (the amendment's instant); without it,
    /// changed entries are left as they are, as already present.
    private let clock: (any Clock)?
    private let recorder: HistoryChangeRecorder

    /// `journal`: where each run is recorded for `undo`; `dataLock`: held
    /// from reading history to writing it, so runs at once, and edits or
    /// undos beside them, each see what the others wrote.
    public init(history: any SessionHistory, directory: any ImportGroupDirectory, active: ActiveSession,
                schedules: (any ScheduleRepository)? = nil, settings: (any SettingsStore)? = nil, clock: (any Clock)? = nil,
                journal: (any HistoryJournal)? = nil, dataLock: (any DataLock)? = nil) {
        self.clock = clock
        recorder = HistoryChangeRecorder(journal: journal, dataLock: dataLock)
        self.history = history
        self.directory = directory
        self.active = active
        self.schedules = schedules
        self.settings = settings
    }

    /// `grouping`: which group a Timewarrior interval goes to; `tool`: the
    /// source's name (`watson`), for `undo` to say which import it reverts.
    public func execute(from source: any HistoryImportSource, path: String, grouping: ImportGrouping = .firstTag,
                        tool: String? = nil) async throws -> ImportSummary {
        var batch = try await source.read(path)
        batch.records = batch.records.map(grouping.apply)
        // The source is read outside the lock (it may be large); what
        // history holds is read, and written, inside it. The slot is read
        // once, by the reconcile, inside it too: a session another process
        // starts holds the lock while it records its session.
        return try await recorder.exclusively {
            let reconciled = try await active.reconcile()
            return try await record(batch, tool: tool, current: try await active.current(after: reconciled)?.id)
        }
    }

    private func record(_ batch: ImportBatch, tool: String?, current: SessionID?) async throws -> ImportSummary {
        var problems = batch.problems
        var accepted: [ImportBatch.Record] = []
        var changed: [(existing: Session, record: ImportBatch.Record)] = []
        var alreadyPresent = 0
        let recorded = try await RecordedImports(history: history, updating: clock != nil && batch.records.contains(where: Self.updatable))
        var known = recorded.ids
        // The sessions entries find by id or start; an interval moved in
        // Timewarrior since is looked for among the others.
        let matched = Set(batch.records.filter(Self.updatable).compactMap { recorded.match($0.session)?.id })
        var claimed: Set<SessionID> = []
        for record in batch.records {
            var problem = record.session.id == current ? "it has the id of the session in progress" : Self.problem(with: record.session)
            var existing = Self.updatable(record) ? recorded.match(record.session) : nil
            if problem == nil, existing == nil, Self.updatable(record) {
                switch recorded.moved(record.session, matched: matched) {
                case .none: break
                // Two intervals over one earlier one (it was split or
                // replaced): the first takes its place, the next is new.
                case .found(let session): existing = claimed.insert(session.id).inserted ? session : nil
                case .ambiguous(let count):
                    problem = "it overlaps \(count) intervals imported earlier and no longer in timewarrior; "
                        + "which one it became is unclear (fix them with 'retime edit' or 'retime delete', then import again)"
                }
            }
            if let problem {
                problems.append(.init(line: record.line, message: (record.file.map { $0 + ": " } ?? "") + problem))
            } else if let existing, known.contains(existing.id) {
                // The same entry again: changed in its tool since, or not.
                if Self.differs(existing, record) && !changed.contains(where: { $0.existing.id == existing.id }) {
                    changed.append((existing, record))
                } else {
                    alreadyPresent += 1
                }
            } else if known.insert(record.session.id).inserted {
                accepted.append(record)
            } else {
                alreadyPresent += 1
            }
        }

        // Intervals deleted in Timewarrior since, or moved out of reach:
        // its data keeps a file per month, so the months it holds are
        // months it knows all of (another machine's database holds others).
        let starts = batch.records.map(\.session).filter { $0.origin == .imported("timewarrior") }.map(\.startedAt)
        var gone = 0
        if let first = starts.min(), let last = starts.max() {
            gone = recorded.unmatched(from: .imported("timewarrior"), within: Timestamp.utcMonths(from: first, through: last),
                                      matched: matched.union(claimed))
        }

        // A backup's groups come first, with or without sessions; then the
        // names the sessions need. Other tools' projects become groups only
        // when they have sessions.
        var requests: [ImportGroupRequest] = [], index: [String: Int] = [:]
        for group in batch.backup?.groups ?? [] where index[group.name.lowercased()] == nil {
            index[group.name.lowercased()] = requests.count
            requests.append(group)
        }
        for record in accepted + changed.map(\.record) where !record.groupDeleted && index[record.groupName.lowercased()] == nil {
            index[record.groupName.lowercased()] = requests.count
            requests.append(ImportGroupRequest(name: record.groupName, preferredId: record.groupId, targets: record.groupTargets))
        }
        let answers = try await directory.groups(for: requests)
        var fresh: [Session] = [], created: [String] = []
        for (request, answer) in zip(requests, answers) {
            if case .success(let found) = answer, found.created { created.append(request.name) }
        }
        for record in accepted {
            if record.groupDeleted {
                fresh.append(record.session)
                continue
            }
            switch answers[index[record.groupName.lowercased()]!] {
            case .success(let found): fresh.append(record.session.inGroup(found.id, named: record.session.groupName ?? record.groupName))
            case .failure(let error):
                let file = record.file.map { $0 + ": " } ?? ""
                problems.append(.init(line: record.line, message: "\(file)no group for '\(record.groupName)': \(error)"))
            }
        }
        var revisions: [(before: Session, after: Session)] = []
        let now = clock?.now()
        for (existing, record) in changed {
            guard now != nil, case .success(let found) = answers[index[record.groupName.lowercased()]!] else {
                alreadyPresent += 1
                continue
            }
            // The session keeps its id, origin and outcome; what the tool
            // says of it now replaces the rest.
            revisions.append((existing, Session(id: existing.id, groupId: found.id, startedAt: record.session.startedAt,
                                                plannedEnd: record.session.endedAt, endedAt: record.session.endedAt,
                                                outcome: existing.outcome, strict: existing.strict, breaks: record.session.breaks,
                                                tags: record.session.tags, note: record.session.note, origin: existing.origin,
                                                groupName: record.session.groupName ?? record.groupName, device: existing.device)))
        }
        if let now {
            try await recorder.record(.import, at: now, source: tool,
                                      entries: fresh.map { .init(before: nil, after: $0) } + revisions.map { .init(before: $0.before, after: $0.after) })
        }
        let appended = try await history.append(contentsOf: fresh)
        if let now, !revisions.isEmpty { try await history.amend(contentsOf: revisions.map { .revise($0.after, at: now) }) }
        // An entry history holds a line of but shows no session for was
        // deleted here since (`undo` of its import, or `delete`): import
        // mirrors the source, so it comes back, as an amendment later than
        // the deletion, and the summary says so.
        var restored = 0
        if let now, appended < fresh.count {
            let visible = Set(try await history.spans(matching: .all).map(\.id))
            let deleted = fresh.filter { !visible.contains($0.id) }
            if !deleted.isEmpty {
                let at = try await recorder.instant(after: now)
                try await history.amend(contentsOf: deleted.map { .revise($0, at: at) })
                restored = deleted.count
            }
        }
        let updated = revisions.count
        var summary = ImportSummary(read: batch.records.count + batch.problems.count, imported: appended + restored,
                                    alreadyPresent: alreadyPresent + fresh.count - appended - restored,
                                    groupsCreated: created, problems: problems.sorted { $0.line < $1.line }, updated: updated, gone: gone)
        summary.restored = restored
        if let backup = batch.backup {
            // A backup's group ids name the groups as the backup knew them; here they may have others.
            var ids: [GroupID: GroupID] = [:]
            for group in backup.groups {
                if let preferred = group.preferredId, case .success(let found)? = index[group.name.lowercased()].map({ answers[$0] }) {
                    ids[preferred] = found.id
                }
            }
            (summary.schedulesRestored, summary.settingsRestored) = try await restore(backup, groupIds: ids)
        }
        return summary
    }

    /// Adds the backup's schedules whose names are free and the settings
    /// not set here: into an empty data directory, all of them; never over
    /// what is there.
    private func restore(_ backup: ImportBatch.Backup, groupIds: [GroupID: GroupID]) async throws -> (schedules: Int, settings: Int) {
        var restored = (schedules: 0, settings: 0)
        if let schedules {
            // A backup is a file anyone may have edited: a schedule `add`
            // would refuse is left out, as a setting `config set` would refuse.
            for var schedule in backup.schedules where AddScheduleUseCase.keepsRules(schedule) {
                guard try await schedules.schedule(named: schedule.name) == nil, let group = groupIds[schedule.groupId] else { continue }
                schedule.groupId = group
                try await schedules.insert(schedule)
                restored.schedules += 1
            }
        }
        if let settings {
            // Only keys this retime knows, with values `config set` would take:
            // a backup is a file anyone may have edited.
            for (key, value) in backup.settings.sorted(by: { $0.key < $1.key }) {
                guard let known = try? SettingKey(parsing: key), let valid = try? known.validate(value),
                      try await settings.value(for: known.rawValue) == nil else { continue }
                try await settings.set(valid, for: known.rawValue)
                restored.settings += 1
            }
        }
        return restored
    }

    /// Whether an entry may update the session it became: Watson's and
    /// Timewarrior's, whose tools edit them in place.
    static func updatable(_ record: ImportBatch.Record) -> Bool {
        record.session.origin == .imported("watson") || record.session.origin == .imported("timewarrior")
    }

    /// Whether the entry says something else of the session than history does.
    static func differs(_ existing: Session, _ record: ImportBatch.Record) -> Bool {
        existing.startedAt != record.session.startedAt || existing.endedAt != record.session.endedAt
            || existing.tags != record.session.tags || existing.note != record.session.note
            || existing.groupName?.lowercased() != (record.session.groupName ?? record.groupName).lowercased()
    }

    /// Why history cannot hold `session`, if it cannot.
    static func problem(with session: Session) -> String? {
        guard let end = session.endedAt else { return "the session has no end" }
        let instants = [session.startedAt, end] + (session.plannedEnd.map { [$0] } ?? [])
        guard instants.allSatisfy(HistoryWindow.instants.contains) else {
            return "a time outside the years \(HistoryWindow.years): a misread timestamp"
        }
        guard end > session.startedAt else { return "it ends before it starts, or when it starts" }
        guard end.timeIntervalSince(session.startedAt) <= SessionLength.allowed.upperBound else {
            let hours = Int(end.timeIntervalSince(session.startedAt) / 3_600)
            return "it lasts \(hours) hours; a session lasts at most \(Int(SessionLength.allowed.upperBound / 3_600)) hours"
        }
        return nil
    }
}

extension Session {
    /// The same session, filed under `group`, with the name it ran under.
    func inGroup(_ group: GroupID, named name: String) -> Session {
        Session(id: id, groupId: group, startedAt: startedAt, plannedEnd: plannedEnd, endedAt: endedAt, outcome: outcome,
                strict: strict, breaks: breaks, tags: tags, note: note, origin: origin, bootDeadline: bootDeadline, groupName: name,
                device: device)
    }
}

extension ImportHistoryUseCase: ReconcilesSession {}
