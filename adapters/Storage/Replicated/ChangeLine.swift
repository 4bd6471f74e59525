import Domain
import FoundationEssentials
import JSONDocument

/// One line of a device's change log (`devices/<id>/changes/<suite>.jsonl`):
/// what one write did to one record, as compact JSON, so a line is all of
/// a record's change or none of it, and a person can read what each device
/// did (docs/storage.md, "Devices"):
///
/// ```
/// {"at":"1795000000123-0-<device>","key":"<record>","changes":[{"set":"name","value":"deep"},{"add":"targets","value":"x.com"}]}
/// {"at":"…","key":"<record>","changes":[{"unset":"note"},{"remove":"targets","value":"x.com"}]}
/// {"at":"…","key":"<record>","value":{…}}        a whole value (a suite merged per value, or a value that is no object)
/// {"at":"…","key":"<record>","delete":true}
/// {"at":"…","key":"current","value":{…},"over":"<at of the value it replaced>"}
/// {"at":"…","key":"current","seen":"<at of a value>"}   that value dealt with, nothing changed
/// {"at":"…","key":"current","delete":true,"over":"…","ends":"<id>"}   the thing that value was removed for good
/// ```
/// In a suite merged per whole value (the session slot), a write names the
/// value it replaced (`over`), so a reader can tell a value another device
/// replaced knowingly from one it replaced unseen (two devices that each
/// started a session before they synced): see `ReplicatedLogStore.unseen`.
/// The i-th change of a line is stamped `at` advanced by i (the writer's
/// clock ticked once per change). Members it does not know are ignored, so
/// a newer retime may add some.
enum ChangeLine {
    /// The field name a whole value is kept under.
    static let wholeValue = ""

    typealias Kind = RecordChange<JSONValue>.Kind

    /// `ends`: on a delete of a whole value that ends (`WholeValueEnding`),
    /// the identity of the thing removed (a session's id), so that a late
    /// edit of it does not bring it back. `wall`: the writer's clock when
    /// it wrote the line (ms), kept as `"wall"` where `at` does not say it
    /// (`physicalReading`).
    static func encode(at: HybridTimestamp, key: String, _ kinds: [Kind], over: HybridTimestamp? = nil, ends: String? = nil,
                       wall: Int64? = nil, clock: String? = nil) throws -> [UInt8] {
        var members: [String: JSONValue] = ["at": .string(at.description), "key": .string(key)]
        if let wall, physicalReading(at: at, wall: nil) != wall { members["wall"] = .int(wall) }
        if let clock { members["clock"] = .string(clock) }
        if let over { members["over"] = .string(over.description) }
        if let ends, kinds == [.delete] { members["ends"] = .string(ends) }
        if kinds == [.delete] {
            members["delete"] = .bool(true)
        } else if kinds.count == 1, case .set(ChangeLine.wholeValue, let value?) = kinds[0] {
            members["value"] = value
        } else {
            members["changes"] = .array(kinds.map { kind in
                switch kind {
                case .set(let field, let value?): .object(["set": .string(field), "value": value])
                case .set(let field, nil): .object(["unset": .string(field)])
                case .add(let field, let element): .object(["add": .string(field), "value": element])
                case .remove(let field, let element): .object(["remove": .string(field), "value": element])
                case .delete: .object(["delete": .bool(true)])
                }
            })
        }
        return try JSONTextWriter.write(.object(members), layout: .compact) + [0x0A]
    }

    /// A line that says a whole value was dealt with (see `unseen`).
    static func encodeSeen(at: HybridTimestamp, key: String, seen: HybridTimestamp, wall: Int64? = nil, clock: String? = nil) throws -> [UInt8] {
        var members: [String: JSONValue] = ["at": .string(at.description), "key": .string(key), "seen": .string(seen.description)]
        if let wall, physicalReading(at: at, wall: nil) != wall { members["wall"] = .int(wall) }
        if let clock { members["clock"] = .string(clock) }
        return try JSONTextWriter.write(.object(members), layout: .compact) + [0x0A]
    }

    /// The writer's clock when it wrote a line stamped `at` (ms): the
    /// stamp's wall part when its counter is 0 (the hybrid clock took the
    /// wall clock as it was), else the line's `wall` member. A stamp that
    /// counts on from another device's reading (a clock behind one it has
    /// seen) is not its writer's clock: another device's estimate of that
    /// clock (`PeerClocks`) needs the reading itself. Nil when neither says.
    static func physicalReading(at: HybridTimestamp, wall: JSONValue?) -> Int64? {
        if case .int(let value)? = wall { return value }
        return at.counter == 0 ? at.milliseconds : nil
    }

    /// The writer's wall clock against its boot-time clock, as `"clock"`
    /// on the first line of each write: `<boot>:<milliseconds>`, the boot's
    /// id (its first 8 characters) and the wall time the boot began at, to
    /// the millisecond. It moves only when that wall clock is moved (or
    /// the machine boots again), so another device tells a clock set back
    /// from a change that came late, and which of two marks was written
    /// last (`PeerClocks`): to the second, two writes a moment apart around
    /// a clock's move could not be told apart.
    static func clockMark(now: Date, boot: BootTimeReading) -> String {
        String(boot.bootID.prefix(8)) + ":" + String(Int64(((now.timeIntervalSince1970 - boot.seconds) * 1_000).rounded()))
    }

    /// `clockMark`'s parts; nil for anything else.
    static func clockMark(_ value: JSONValue?) -> (boot: String, epoch: Int64)? {
        guard case .string(let text)? = value, let colon = text.lastIndex(of: ":"), let epoch = Int64(text[text.index(after: colon)...])
        else { return nil }
        return (String(text[..<colon]), epoch)
    }

    /// `date` in milliseconds, as the hybrid clock reads a wall clock.
    static func milliseconds(of date: Date) -> Int64 {
        let value = (date.timeIntervalSince1970 * 1_000).rounded(.down)
        guard value.isFinite else { return 0 }
        return Int64(min(max(value, 0), Double(HybridTimestamp.latestMilliseconds)))
    }

    /// What a line holds: its changes, each with its stamp, and the whole
    /// value it knowingly replaced or dealt with (`over`, `seen`).
    struct Decoded {
        var key: String
        var at: HybridTimestamp
        var changes: [RecordChange<JSONValue>]
        var acknowledged: HybridTimestamp?
        /// A delete's `ends`: the identity of the thing it removed for good.
        var ends: String?
    }

    /// The changes a line holds, each with its stamp, or why it holds none.
    static func decode(_ line: [UInt8]) throws(Malformed) -> [RecordChange<JSONValue>] {
        try decodeLine(line).changes
    }

    /// `values: false`: each whole value read as `.null` (only its shape
    /// checked), for a reader of which fields lines set, not of their values.
    static func decodeLine(_ line: [UInt8], values: Bool = true) throws(Malformed) -> Decoded {
        guard let members = try? LineMembers.parse(line, values: values) else { throw Malformed(reason: "not a JSON object") }
        guard case .string(let text)? = members.at, let at = HybridTimestamp(text: text) else {
            throw Malformed(reason: "no valid \"at\" (a hybrid clock reading)")
        }
        guard case .string(let key)? = members.key, !key.isEmpty else { throw Malformed(reason: "no \"key\"") }
        var acknowledged: HybridTimestamp?
        for (name, member) in [("over", members.over), ("seen", members.seen)] {
            guard let member else { continue }
            guard case .string(let text) = member, let stamp = HybridTimestamp(text: text) else {
                throw Malformed(reason: "\"\(name)\" is not a hybrid clock reading")
            }
            acknowledged = stamp
        }
        if members.seen != nil { return Decoded(key: key, at: at, changes: [], acknowledged: acknowledged) }
        let changes = try changes(members, at: at, key: key)
        // An `ends` on anything but a delete says nothing: passed over.
        guard case .string(let ends)? = members.ends, changes.count == 1, changes[0].kind == .delete else {
            return Decoded(key: key, at: at, changes: changes, acknowledged: acknowledged)
        }
        return Decoded(key: key, at: at, changes: changes, acknowledged: acknowledged, ends: ends)
    }

    private static func changes(_ members: LineMembers, at: HybridTimestamp, key: String) throws(Malformed) -> [RecordChange<JSONValue>] {
        if members.delete == .bool(true) { return [RecordChange(at: at, record: key, kind: .delete)] }
        if let value = members.value { return [RecordChange(at: at, record: key, kind: .set(field: wholeValue, value: value))] }
        guard let items = members.changes, !items.isEmpty, items.count < 1 << 20 else {
            throw Malformed(reason: "no \"changes\", \"value\" or \"delete\"")
        }
        var changes: [RecordChange<JSONValue>] = []
        changes.reserveCapacity(items.count)
        for (index, item) in items.enumerated() {
            changes.append(RecordChange(at: at.advanced(by: index), record: key, kind: try kind(item, index)))
        }
        return changes
    }

    private static func kind(_ item: ChangeMembers?, _ index: Int) throws(Malformed) -> Kind {
        guard let change = item else { throw Malformed(reason: "change \(index + 1) is not an object") }
        if case .string(let field)? = change.set, let value = change.value { return .set(field: field, value: value) }
        if case .string(let field)? = change.unset { return .set(field: field, value: nil) }
        if case .string(let field)? = change.add, let value = change.value { return .add(field: field, element: value) }
        if case .string(let field)? = change.remove, let value = change.value { return .remove(field: field, element: value) }
        if change.delete == .bool(true) { return .delete }
        throw Malformed(reason: "change \(index + 1) is none retime knows")
    }

    struct Malformed: Error {
        var reason: String
    }
}
