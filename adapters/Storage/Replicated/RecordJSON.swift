import Domain
import JSONDocument

/// How a suite's JSON values map onto replicated records: a JSON object is
/// merged per top-level member (its fields); the members named in
/// `setFields` hold arrays merged per element (a group's targets); any
/// other value, and every value of a whole-value suite (the session slot,
/// where two devices' sessions must never be mixed), is one field.
struct RecordJSON: Sendable {
    var setFields: Set<String> = []
    var wholeValues = false

    typealias Records = ReplicatedRecords<JSONValue>
    typealias Kind = RecordChange<JSONValue>.Kind

    /// The suite's values as the records hold them.
    func values(of records: Records) -> [String: JSONValue] {
        var values: [String: JSONValue] = [:]
        for key in records.keys {
            if let record = records.record(key), let value = value(of: record) { values[key] = value }
        }
        return values
    }

    func value(of record: RecordFields<JSONValue>) -> JSONValue? {
        if let whole = record.fields[ChangeLine.wholeValue] { return whole }
        var members = record.fields
        for (name, elements) in record.sets { members[name] = .array(elements) }
        return members.isEmpty ? nil : .object(members)
    }

    /// The changes that turn the records' `key` into `new` (nil: deleted),
    /// in the order they are to be stamped.
    func changes(to new: JSONValue?, of key: String, in records: Records) -> [Kind] {
        guard let new else { return records.record(key) == nil ? [] : [.delete] }
        // Compared with everything the key holds, a deleted life included:
        // a record made again starts clean.
        let current = records.remains(key)
        let isLive = records.record(key) != nil
        guard !wholeValues, case .object(let members) = new else {
            if isLive, current.fields[ChangeLine.wholeValue] == new { return [] }
            return [.set(field: ChangeLine.wholeValue, value: new)] + clearing(current, keeping: [:])
        }
        var kinds: [Kind] = []
        if current.fields[ChangeLine.wholeValue] != nil { kinds.append(.set(field: ChangeLine.wholeValue, value: nil)) }
        for name in members.keys.sorted() {
            let value = members[name]!
            if setFields.contains(name), case .array(let elements) = value {
                let present = current.sets[name] ?? []
                if present.isEmpty, current.sets[name] == nil || elements.isEmpty {
                    // No element was ever added: the (empty) array itself says the field is there.
                    if elements.isEmpty {
                        if current.fields[name] != value { kinds.append(.set(field: name, value: value)) }
                        continue
                    }
                }
                var seen = Set<JSONValue>()
                for element in elements where seen.insert(element).inserted && !present.contains(element) {
                    kinds.append(.add(field: name, element: element))
                }
                for element in present where !seen.contains(element) { kinds.append(.remove(field: name, element: element)) }
            } else {
                for element in current.sets[name] ?? [] { kinds.append(.remove(field: name, element: element)) }
                if current.fields[name] != value { kinds.append(.set(field: name, value: value)) }
            }
        }
        kinds += clearing(current, keeping: members)
        // A record made again after a delete needs a change even if every
        // field already holds its value.
        if !isLive, kinds.isEmpty, let name = members.keys.sorted().first { kinds.append(.set(field: name, value: members[name]!)) }
        return kinds
    }

    /// Clears the fields and set members of `current` that `keeping` does not name.
    private func clearing(_ current: RecordFields<JSONValue>, keeping members: [String: JSONValue]) -> [Kind] {
        var kinds: [Kind] = []
        for name in current.fields.keys.sorted() where name != ChangeLine.wholeValue && members[name] == nil {
            kinds.append(.set(field: name, value: nil))
        }
        for name in current.sets.keys.sorted() where members[name] == nil {
            for element in current.sets[name]! { kinds.append(.remove(field: name, element: element)) }
        }
        return kinds
    }
}
