import Domain
import JSONDocument

/// Finding a named record among a suite's raw values by reading only its
/// `name`: a lookup among 1,000 groups decodes the one it finds, not all.
enum RecordNames {
    /// The members every function here reads (`KeyValueStore.values(of:members:)`).
    static let members: Set<String> = ["id", "name"]

    /// The record's `name` field, if it has a readable one.
    static func name(of value: JSONValue) -> String? {
        guard case .object(let members) = value, case .string(let name)? = members["name"] else { return nil }
        return name
    }

    /// The records whose making has reached this device: a record that is
    /// only the changes another device made to it (a rename, a target
    /// blocked), its making not yet here or in a log that does not read
    /// (semantics.md, "A peer's damage is not mine"), has no `id`, and is
    /// not yet a record: left out until its making arrives. The values
    /// themselves when every record has one (one pass, no copy).
    static func made(_ values: [String: JSONValue]) -> [String: JSONValue] {
        guard values.contains(where: { !isMade($0.value) }) else { return values }
        return values.filter { isMade($0.value) }
    }

    static func isMade(_ value: JSONValue) -> Bool {
        guard case .object(let members) = value else { return true }
        return members["id"] != nil
    }

    /// The record's `id` field, if it has a readable one.
    static func id(of value: JSONValue) -> String? {
        guard case .object(let members) = value, case .string(let id)? = members["id"] else { return nil }
        return id
    }

    /// The key of the record named `name` (an exact match first, then the
    /// same comparison key), and the keys of records whose name cannot be
    /// read: the caller decodes those to report what is wrong with them.
    /// Two records may hold one name (made on two devices before they saw
    /// each other, with random ids): the smaller key wins, so every device
    /// and every run finds the same one.
    static func key(named name: String, in values: [String: JSONValue]) -> (found: String?, unreadable: [String]) {
        var unreadable: [String] = []
        var exact: String?
        for (key, value) in values {
            guard let stored = self.name(of: value) else { unreadable.append(key); continue }
            if stored == name, exact.map({ key < $0 }) ?? true { exact = key }
        }
        if let exact { return (exact, []) }
        let wanted = NameRules.comparisonKey(name)
        let found = values.lazy.filter { self.name(of: $0.value).map(NameRules.comparisonKey) == wanted }.map(\.key).min()
        return (found, found == nil ? unreadable : [])
    }
}
