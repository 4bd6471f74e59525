import Domain
import FoundationEssentials
import JSONDocument

/// `retime undo [--dry-run]`: reverts the last change this device's
/// `track`, `edit`, `delete` or `import` made to history; again, the one
/// before (docs/history.md, "Undo").
struct UndoCommand: RetimeCommand {
    static let spec = CommandSpec(
        "undo", summary: "Undo the last change to history: a track, edit, delete or import.",
        discussion: "Run again, it undoes the change before that one. Only history records change: a session's start, stop or cancel, its block and groups are not undone. Changes made on another device are not undone here.",
        options: [.flag("dry-run", help: "Say what would be undone, and change nothing.")])
    let dryRun: Bool
    init(_ parsed: ParsedCommand, values: DateValue) { dryRun = parsed.flag("dry-run") }

    struct Services: CommandServices {
        @Resolved var undo: UndoHistoryChangeUseCase
        @Resolved var groups: any GroupRepository
        @Resolved var clock: any RetimeShared.Clock
    }

    func run(_ services: Services, _ io: CommandIO) async throws -> CommandResult {
        let outcome = try await services.undo.execute(dryRun: dryRun)
        let now = services.clock.now()
        var names: [GroupID: String?] = [:]
        for entry in outcome.restored + outcome.changedSince {
            guard let session = entry.after ?? entry.before, names[session.groupId] == nil else { continue }
            names[session.groupId] = try await services.groups.name(of: session.groupId)
        }
        func name(_ session: Session) -> String? { session.groupName ?? names[session.groupId] ?? nil }
        func entry(_ entry: HistoryChange.Entry) -> JSONValue {
            .object(["id": .string(entry.id.description),
                     "before": entry.before.map { Documents.session($0, groupName: name($0), at: now) } ?? .null,
                     "after": entry.after.map { Documents.session($0, groupName: name($0), at: now) } ?? .null])
        }
        let change = outcome.change
        let json = Documents.document([
            "dryRun": .bool(outcome.dryRun),
            "change": .object(["id": .string(change.id.uuidString.lowercased()), "kind": .string(change.kind.rawValue),
                               "at": Documents.time(change.at), "source": change.source.map(JSONValue.string) ?? .null]),
            "restored": .array(outcome.restored.map(entry)),
            "changedSince": .array(outcome.changedSince.map(entry)),
        ])
        return CommandResult(json: json, human: TextWrap.wrap(Self.message(outcome, now: now, name: name),
                                                              width: io.console.proseColumns, indent: "  "))
    }

    /// What was (or would be) undone, in words.
    static func message(_ outcome: UndoHistoryChangeUseCase.Outcome, now: Date, name: (Session) -> String?) -> String {
        let change = outcome.change, would = outcome.dryRun
        func line(_ session: Session) -> String { HistoryEditCommands.line(session, group: name(session), now: now) }
        var text: String
        let single = change.entries.count == 1 ? change.entries[0] : nil
        if outcome.restored.isEmpty, let entry = single, let session = entry.after ?? entry.before {
            // Its one session was changed since elsewhere: nothing to put back.
            return "\(would ? "Would pass over" : "Passed over") \(change.kind.rawValue) of \(line(session)): it was changed since on another "
                + "device and \(would ? "would be" : "is") left as it is."
        }
        switch (change.kind, single) {
        case (.track, let entry?) where entry.after != nil:
            text = "\(would ? "Would undo" : "Undid") track: \(line(entry.after!)) \(would ? "would leave" : "is out of") history"
        case (.edit, let entry?) where entry.before != nil && entry.after != nil:
            let parts = entry.changedParts
            let list = parts.count > 1 ? parts.dropLast().joined(separator: ", ") + " and " + parts.last! : parts[0]
            text = "\(would ? "Would undo" : "Undid") edit of \(line(entry.after!)): its \(list) \(would ? "would be" : ["note", "group"].contains(list) ? "is" : "are") back as before"
                + (entry.before!.startedAt != entry.after!.startedAt || entry.before!.endedAt != entry.after!.endedAt
                   ? " (\(line(entry.before!)))" : "")
        case (.delete, let entry?) where entry.before != nil:
            text = "\(would ? "Would undo" : "Undid") delete: \(line(entry.before!)) \(would ? "would be" : "is") back in history"
        default:
            let added = outcome.restored.filter { $0.before == nil }.count
            let updated = outcome.restored.count - added
            var parts: [String] = []
            func be(_ count: Int) -> String { would ? "would be" : count == 1 ? "is" : "are" }
            if added > 0 { parts.append("\(added) \(added == 1 ? "session" : "sessions") it added \(be(added)) removed") }
            if updated > 0 { parts.append("\(updated) it updated \(be(updated)) back as before") }
            let from = change.source.map { " from \($0)" } ?? ""
            text = "\(would ? "Would undo" : "Undid") \(change.kind.rawValue)\(from) of \(LocalTime.dateTime(change.at))"
                + (parts.isEmpty ? "" : ": " + parts.joined(separator: ", "))
        }
        if !outcome.changedSince.isEmpty {
            let count = outcome.changedSince.count
            text += "; \(count) \(count == 1 ? "session was" : "sessions were") changed since on another device and \(would ? "would be" : "are") left as \(count == 1 ? "it is" : "they are")"
        }
        return text + "."
    }
}
