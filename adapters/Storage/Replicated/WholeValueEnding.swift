import Domain
import JSONDocument

/// For a suite of whole values that end (the session slot): what tells two
/// values apart as the same thing (a session's id) and whether a value is
/// its ending (an `endedAt`). Ending is final: a value whose thing has an
/// ended value in some log reads as that ending, whatever the clock says.
/// A pause, a resume or a `next` made on a device that had not yet seen
/// the session stopped elsewhere is written later than the stop, and the
/// slot, merged by the clock alone, ran the stopped session again.
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

    /// `values` with each value that has not ended but whose thing has an
    /// ended value among `written` (every whole value the logs hold, by
    /// key and stamp) replaced by that ending (the latest, if several).
    func applied(to values: [String: JSONValue], written: [String: [HybridTimestamp: JSONValue]]) -> [String: JSONValue] {
        var values = values
        for (key, value) in values where !isEnded(value) {
            guard let id = identity(value), let all = written[key], all.count > 1 else { continue }
            let endings = all.filter { isEnded($0.value) && identity($0.value) == id }
            if let last = endings.max(by: { $0.key < $1.key }) { values[key] = last.value }
        }
        return values
    }
}
