import Domain
import JSONDocument

/// One line of a device's change log (`devices/<id>/changes/<suite>.jsonl`):
/// a `RecordChange` as compact JSON, one object a line, so a person can
/// read what each device did (docs/storage.md, "Devices"):
///
/// ```
/// {"at":"1795000000123-0-<device>","key":"<record>","field":"name","value":"deep"}
/// {"at":"…","key":"<record>","field":"note"}                     the field removed
/// {"at":"…","key":"<record>","value":{…}}                        a whole value (no fields)
/// {"at":"…","key":"<record>","field":"targets","add":"slack.com"}
/// {"at":"…","key":"<record>","field":"targets","remove":"slack.com"}
/// {"at":"…","key":"<record>","delete":true}
/// ```
/// Members it does not know are ignored, so a newer retime may add some.
enum ChangeLine {
    /// The field name a whole value is kept under.
    static let wholeValue = ""

    static func encode(_ change: RecordChange<JSONValue>) throws -> [UInt8] {
        var members: [String: JSONValue] = ["at": .string(change.at.description), "key": .string(change.record)]
        switch change.kind {
        case .set(let field, let value):
            if field != wholeValue { members["field"] = .string(field) }
            if let value { members["value"] = value }
        case .add(let field, let element):
            members["field"] = .string(field)
            members["add"] = element
        case .remove(let field, let element):
            members["field"] = .string(field)
            members["remove"] = element
        case .delete:
            members["delete"] = .bool(true)
        }
        return try JSONTextWriter.write(.object(members), layout: .compact) + [0x0A]
    }

    /// The change a line holds, or why it holds none.
    static func decode(_ line: [UInt8]) throws(Malformed) -> RecordChange<JSONValue> {
        guard case .object(let members)? = try? JSONText.parse(line) else { throw Malformed(reason: "not a JSON object") }
        guard case .string(let text)? = members["at"], let at = HybridTimestamp(text: text) else {
            throw Malformed(reason: "no valid \"at\" (a hybrid clock reading)")
        }
        guard case .string(let key)? = members["key"], !key.isEmpty else { throw Malformed(reason: "no \"key\"") }
        let field: String?
        switch members["field"] {
        case .string(let name)?: field = name
        case nil: field = nil
        default: throw Malformed(reason: "\"field\" is not a string")
        }
        if members["delete"] == .bool(true) { return RecordChange(at: at, record: key, kind: .delete) }
        if let element = members["add"] {
            guard let field else { throw Malformed(reason: "\"add\" without a \"field\"") }
            return RecordChange(at: at, record: key, kind: .add(field: field, element: element))
        }
        if let element = members["remove"] {
            guard let field else { throw Malformed(reason: "\"remove\" without a \"field\"") }
            return RecordChange(at: at, record: key, kind: .remove(field: field, element: element))
        }
        guard field != nil || members["value"] != nil else { throw Malformed(reason: "no change in it") }
        return RecordChange(at: at, record: key, kind: .set(field: field ?? wholeValue, value: members["value"]))
    }

    struct Malformed: Error {
        var reason: String
    }
}
