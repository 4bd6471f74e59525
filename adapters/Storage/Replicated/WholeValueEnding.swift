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
        let removed = reader.removals.isEmpty ? [:] : removed(in: reader)
        var values = values, emptied: [String: HybridTimestamp] = [:]
        for (key, value) in values {
            if !removed.isEmpty, let stamp = reader.records.stamp(of: key, field: ChangeLine.wholeValue), let removal = removed[stamp] {
                values[key] = nil
                emptied[key] = removal
                continue
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
    func removed(in reader: ChangeLogReader) -> [HybridTimestamp: HybridTimestamp] {
        var removed: [HybridTimestamp: HybridTimestamp] = [:]
        for (key, things) in reader.removals {
            for (stamp, value) in reader.wholeValues[key] ?? [:] {
                guard let id = identity(value), let removal = things[id], Self.descends(stamp, before: removal, overs: reader.overs) else { continue }
                removed[stamp] = removal
            }
        }
        return removed
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
