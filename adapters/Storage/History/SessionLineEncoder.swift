import Domain
import FoundationEssentials
import JSONDocument
#if canImport(Glibc)
import Glibc
#endif

/// Writes a history line byte by byte, in exactly the form the store's JSON
/// encoder gives (sorted keys, no escaped slashes, absent optionals left
/// out), at a fraction of its cost: an import appends 100,000 of them.
/// `SessionLineEncoderTests` holds it to JSONEncoder's output.
struct SessionLineEncoder {
    private(set) var bytes: [UInt8] = []

    static func encode(_ session: Session) -> [UInt8] {
        var encoder = SessionLineEncoder()
        encoder.bytes.reserveCapacity(320)
        encoder.session(session)
        encoder.bytes.append(UInt8(ascii: "\n"))
        return encoder.bytes
    }

    /// The session's JSON object (no newline) appended to `output`: an
    /// export writes 100,000 into one buffer.
    static func append(_ session: Session, to output: inout [UInt8]) {
        var encoder = SessionLineEncoder()
        swap(&encoder.bytes, &output)
        encoder.session(session)
        swap(&encoder.bytes, &output)
    }

    /// `"name":["a","b"],` for an amendment line's lists (`tagsAdded`).
    static func list(_ name: StaticString, _ values: [String]) -> [UInt8] {
        var encoder = SessionLineEncoder()
        encoder.raw("\"")
        encoder.raw(name)
        encoder.raw("\":[")
        for (index, value) in values.enumerated() {
            if index > 0 { encoder.raw(",") }
            encoder.string(value)
        }
        encoder.raw("],")
        return encoder.bytes
    }

    private var opened = false

    /// `{"name":` for the first member, `,"name":` after.
    private mutating func key(_ name: StaticString) {
        bytes.append(opened ? UInt8(ascii: ",") : UInt8(ascii: "{"))
        opened = true
        raw("\"")
        raw(name)
        raw("\":")
    }

    private mutating func session(_ session: Session) {
        // Every stretch as JSONEncoder writes one (keys in order, an open
        // end left out): a kept stretch stays kept in history.
        if let away = session.away, !away.isEmpty {
            key("away")
            raw("[")
            for (index, stretch) in away.enumerated() {
                raw(index > 0 ? ",{" : "{")
                if let end = stretch.end { raw("\"end\":"); date(end); raw(",") }
                raw("\"kept\":")
                raw(stretch.kept ? "true" : "false")
                raw(",\"reason\":")
                string(stretch.reason.rawValue)
                raw(",\"start\":")
                date(stretch.start)
                raw(",\"threshold\":")
                let threshold = stretch.threshold
                text(threshold == threshold.rounded() && abs(threshold) < 1e15 ? String(Int64(threshold)) : String(threshold))
                raw("}")
            }
            raw("]")
        }
        if let boot = session.bootDeadline {
            key("bootDeadline")
            raw("{\"bootID\":")
            string(boot.bootID)
            raw(",\"seconds\":")
            text(String(boot.seconds))
            raw("}")
        }
        key("breaks")
        raw("[")
        for (index, pause) in session.breaks.enumerated() {
            if index > 0 { raw(",") }
            if let end = pause.end {
                raw("{\"end\":")
                date(end)
                raw(",\"start\":")
            } else {
                raw("{\"start\":")
            }
            date(pause.start)
            raw("}")
        }
        raw("]")
        if let cycle = session.cycle { key("cycle"); self.cycle(cycle) }
        // The device it was started on, so `log --json` can name it.
        if let device = session.device { key("device"); string(device) }
        if let endedAt = session.endedAt { key("endedAt"); date(endedAt) }
        key("groupId"); string(session.groupId.description)
        if let name = session.groupName { key("groupName"); string(name) }
        key("id"); string(session.id.description)
        if let note = session.note { key("note"); string(note) }
        key("origin"); string(session.origin.description)
        key("outcome"); string(session.outcome.rawValue)
        if let plannedEnd = session.plannedEnd { key("plannedEnd"); date(plannedEnd) }
        key("startedAt"); date(session.startedAt)
        key("strict"); raw(session.strict ? "true" : "false")
        key("tags")
        raw("[")
        for (index, tag) in session.tags.enumerated() {
            if index > 0 { raw(",") }
            string(tag)
        }
        raw("]}")
    }

    /// A cycle's members in key order, absent ones left out.
    private mutating func cycle(_ cycle: Cycle) {
        var first = true
        func member(_ name: StaticString, _ value: String?) {
            guard let value else { return }
            raw(first ? "{\"" : ",\"")
            first = false
            raw(name)
            raw("\":")
            text(value)
        }
        // As JSONEncoder writes a number: a whole one without its ".0".
        func number(_ value: Double?) -> String? {
            value.map { $0 == $0.rounded() && abs($0) < 1e15 ? String(Int64($0)) : String($0) }
        }
        member("breakLength", number(cycle.breakLength))
        member("breakRatio", number(cycle.breakRatio))
        member("longBreak", number(cycle.longBreak))
        member("rounds", cycle.rounds.map { String($0) })
        member("work", number(cycle.work))
        raw(first ? "{}" : "}")
    }

    private mutating func raw(_ literal: StaticString) {
        literal.withUTF8Buffer { bytes.append(contentsOf: $0) }
    }

    private mutating func text(_ value: String) {
        bytes.append(contentsOf: value.utf8)
    }

    private mutating func date(_ date: Date) {
        bytes.append(UInt8(ascii: "\""))
        text(Timestamp.format(date))
        bytes.append(UInt8(ascii: "\""))
    }

    /// A JSON string with the escapes JSONEncoder uses.
    private mutating func string(_ value: String) {
        JSONStringEscaping.append(value, to: &bytes)
    }
}
