import FoundationEssentials
import RetimeSession

/// Which group an imported Timewarrior interval goes to. Timewarrior has no
/// projects, only tags (written in sorted order), so "the first tag" is the
/// first in the alphabet, not the one the user meant; a user says which.
public enum ImportGrouping: Sendable, Equatable {
    /// The first tag, as Timewarrior lists them (the default).
    case firstTag
    /// Every interval into one group; all its tags stay tags.
    case named(String)
    /// The first tag that starts with the prefix, without it (`project:`
    /// makes `project:thesis` the group `thesis`); an interval with none
    /// goes to `fallback`. The others stay tags.
    case tagPrefix(String, fallback: String)

    /// The group of an interval with no tag, as read.
    public static let untagged = "timewarrior"

    /// `record` with its group chosen by the rule.
    func apply(_ record: ImportBatch.Record) -> ImportBatch.Record {
        let untagged = Self.untagged
        guard record.session.origin == .imported("timewarrior") else { return record }
        // As read: the first tag is the group, unless there was none.
        let tags = (record.groupName == untagged && record.session.tags.isEmpty ? [] : [record.groupName]) + record.session.tags
        var result = record
        switch self {
        case .firstTag:
            return record
        case .named(let name):
            result.groupName = name
            result.session = record.session.retagged(tags)
        case .tagPrefix(let prefix, let fallback):
            if let index = tags.firstIndex(where: { $0.hasPrefix(prefix) && $0.count > prefix.count }) {
                result.groupName = String(tags[index].dropFirst(prefix.count))
                result.session = record.session.retagged(tags.enumerated().filter { $0.offset != index }.map(\.element))
            } else {
                result.groupName = fallback
                result.session = record.session.retagged(tags)
            }
        }
        return result
    }
}

extension Session {
    /// The same session with other tags.
    func retagged(_ tags: [String]) -> Session {
        Session(id: id, groupId: groupId, startedAt: startedAt, plannedEnd: plannedEnd, endedAt: endedAt, outcome: outcome,
                strict: strict, breaks: breaks, tags: tags, note: note, origin: origin, bootDeadline: bootDeadline, groupName: groupName,
                device: device)
    }
}
