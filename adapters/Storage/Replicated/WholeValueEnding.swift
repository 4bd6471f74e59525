import Domain
import JSONDocument

/// For a suite of whole values that end (the session slot): what tells two
/// values apart as the same thing (a session's id) and whether a value is
/// its ending (an `endedAt`). Ending is final: a value whose thing has an
/// ended value in some log reads as that ending, whatever the clock says;
/// removal is final too: a value whose thing a delete removed for good
/// (its line's `ends`: a stop's last write, a `cancel`) reads as removed.
/// A pause, a resume or a `next` made on a device that had not yet seen
/// the session stopped or cancelled elsewhere is written later than the
/// stop, and the slot, merged by the clock alone, ran the session again.
public struct WholeValueEnding: Sendable {
    var identity: @Sendable (JSONValue) -> String?
    var isEnded: @Sendable (JSONValue) -> Bool

    /// Sessions: by `id`; ended once `endedAt` is a date.
    public static let sessions = WholeValueEnding(
        identity: { value in
            guard case .object(let members) = value, case .string(let id)? = members["id"] else { return nil }
            return id
        },
        isEnded: { value in
            guard case .object(let members) = value, case .string? = members["endedAt"] else { return false }
            return true
        })

    /// `values` without each value a removal for good removed
    /// (`removed(in:)`), and with each value that has not ended but whose
    /// thing has an ended value among the logs' replaced by that ending
    /// (the latest, if several). `emptied`: the keys emptied so, with the
    /// removal's stamp (its device removed it); `hidden`: the stamps of
    /// every value removed so (no contender of a concurrent start).
    func applied(to values: [String: JSONValue], reader: ChangeLogReader)
        -> (values: [String: JSONValue], emptied: [String: HybridTimestamp], hidden: Set<HybridTimestamp>) {
        let replacements = replacements(in: reader)
        let removed = reader.removals.isEmpty && replacements.isEmpty ? [:] : removed(in: reader, replacements: replacements)
        var values = values, emptied: [String: HybridTimestamp] = [:]
        for (key, var value) in values {
            if !removed.isEmpty, let stamp = reader.records.stamp(of: key, field: ChangeLine.wholeValue), let removal = removed[stamp] {
                // Replaced for good by another thing: the latest value not
                // removed holds (the replacing thing's, or an edit of it).
                // Removed by a delete: the key is empty.
                guard removal.replaced, let survivor = (reader.wholeValues[key] ?? [:]).filter({ removed[$0.key] == nil }).max(by: { $0.key < $1.key })
                else {
                    values[key] = nil
                    emptied[key] = removal.stamp
                    continue
                }
                value = survivor.value
                values[key] = value
            }
            guard !isEnded(value), let id = identity(value), let all = reader.wholeValues[key], all.count > 1 else { continue }
            let endings = all.filter { isEnded($0.value) && identity($0.value) == id }
            if let last = endings.max(by: { $0.key < $1.key }) { values[key] = last.value }
        }
        return (values, emptied, Set(removed.keys))
    }

    /// The stamps of the whole values a removal for good removed, each with
    /// the removal's stamp: every value of the thing a delete's `ends`
    /// names that was written before the delete, or that is an edit of one
    /// that was (its `over`s lead back there), however late its stamp. A
    /// device that had not seen the delete stamps its edit later, so the
    /// clock alone would run the removed thing again; a thing made again
    /// after the delete (a start into an empty slot) is not removed.
    func removed(in reader: ChangeLogReader, replacements: [String: [String: HybridTimestamp]] = [:])
        -> [HybridTimestamp: (stamp: HybridTimestamp, replaced: Bool)] {
        var removed: [HybridTimestamp: (stamp: HybridTimestamp, replaced: Bool)] = [:]
        for key in Set(reader.removals.keys).union(replacements.keys) {
            let deletes = reader.removals[key] ?? [:], replaced = replacements[key] ?? [:]
            for (stamp, value) in reader.wholeValues[key] ?? [:] {
                guard let id = identity(value) else { continue }
                // A delete removes the thing for good, whatever replaced it.
                if let removal = deletes[id], Self.descends(stamp, before: removal, overs: reader.overs) {
                    removed[stamp] = (removal, false)
                } else if let replacement = replaced[id], Self.descends(stamp, before: replacement, overs: reader.overs) {
                    removed[stamp] = (replacement, true)
                }
            }
        }
        return removed
    }

    /// Per key, each thing another thing's value was written over (two
    /// sessions started at once: the one that holds takes the slot from
    /// the other, which ends), with the latest such write's stamp. Ending
    /// is final for it as for a delete: an edit of it made on a device that
    /// had not seen it replaced (a pause) is stamped later, and the slot,
    /// merged by the clock alone, ran the ended session again.
    func replacements(in reader: ChangeLogReader) -> [String: [String: HybridTimestamp]] {
        guard !reader.overs.isEmpty else { return [:] }
        var replaced: [String: [String: HybridTimestamp]] = [:]
        for (key, values) in reader.wholeValues where values.count > 1 {
            for (later, value) in values {
                guard let earlier = reader.overs[later], let before = values[earlier], let id = identity(before), id != identity(value) else { continue }
                replaced[key, default: [:]][id] = max(replaced[key]?[id] ?? later, later)
            }
        }
        return replaced
    }

    /// Whether the value stamped `stamp`, or one its `over`s lead back to,
    /// was written before `removal`.
    static func descends(_ stamp: HybridTimestamp, before removal: HybridTimestamp, overs: [HybridTimestamp: HybridTimestamp]) -> Bool {
        var at = stamp
        for _ in 0...overs.count {
            if at < removal { return true }
            guard let over = overs[at] else { return false }
            at = over
        }
        return false
    }
}
