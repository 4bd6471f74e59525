#if canImport(Glibc)
import Domain
import FoundationEssentials
import Glibc
import JSONDocument
#endif

/// Sessions as CSV (RFC 4180 quoting), with a header line.
enum CSVTable {
    static let header = "id,group,groupId,startedAt,plannedEnd,endedAt,outcome,strict,focusedSeconds,breaks,tags,note,origin"

    /// `names` names the groups of sessions that do not carry the name
    /// their group ran under (recorded before sessions kept it).
    static func sessions(_ sessions: [Session], names: [GroupID: String], now: Date) -> String {
        ([header] + sessions.map { session in
            [session.id.description, (session.groupName ?? names[session.groupId]) ?? "", session.groupId.description,
             text(Documents.time(session.startedAt)), text(Documents.time(session.plannedEnd)), text(Documents.time(session.endedAt)),
             session.outcome.rawValue, String(session.strict), JSONWriter.write(.double(session.focused(at: now))),
             String(session.breaks.count), Self.tags(session.tags), session.note ?? "", session.origin.description]
                .map(field).joined(separator: ",")
        }).joined(separator: "\n")
    }

    /// Tags in one field, `;` between them; a `;` or `\` inside a tag is
    /// escaped with `\`, so `a;b` (one tag) and `a`, `b` (two) differ.
    static func tags(_ tags: [String]) -> String {
        tags.map { $0.replacingAll("\\", with: "\\\\").replacingAll(";", with: "\\;") }.joined(separator: ";")
    }

    private static func text(_ value: JSONValue) -> String {
        if case .string(let text) = value { return text }
        return ""
    }

    /// One cell, quoted where RFC 4180 needs it. A text a spreadsheet
    /// would run as a formula (`=`, `+`, `-`, `@`, a tab or CR first: a
    /// group named `=HYPERLINK(...)`) is prefixed with `'`, as spreadsheet
    /// tools expect, so opening an export runs nothing.
    static func field(_ value: String) -> String {
        var value = value
        if let first = value.unicodeScalars.first, "=+-@\t\r".unicodeScalars.contains(first) { value = "'" + value }
        guard value.contains(where: { $0 == "," || $0 == "\"" || $0 == "\n" || $0 == "\r" }) else { return value }
        return "\"" + value.replacingAll("\"", with: "\"\"") + "\""
    }
}
