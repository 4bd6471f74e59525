import Domain
import FoundationEssentials
import JSONDocument

/// The formats `status --follow` prints, one line per update: for a person
/// or polybar (`plain`), a program (`json`: the `status --json` document),
/// waybar's custom module (`waybar`) and i3blocks' persistent JSON blocks
/// (`i3blocks`). docs/desktop.md has each bar's snippet.
enum StatusLineFormat: String, CaseIterable, Sendable {
    case plain, json, waybar, i3blocks
}

/// One line of `status --follow`.
enum StatusLine {
    /// What a line tells apart from the figures time changes by itself: a
    /// line is printed when this changes (a start, a pause, a resume, an
    /// end, another session), and otherwise only at the interval.
    struct State: Hashable {
        let session: SessionID?
        let paused: Bool
        let group: String?
        let plannedEnd: Date?
        let strict: Bool
        /// A cycle's phase: work that starts waiting for its user is a change.
        let phase: String?
        /// The code of the failure shown instead of a status, if any.
        let failure: String?

        init(_ status: SessionStatus?, failure: String? = nil) {
            session = status?.session.id
            paused = status?.session.isPaused ?? false
            group = status?.groupName
            plannedEnd = status?.session.plannedEnd
            strict = status?.session.strict ?? false
            phase = status?.session.cyclePhase?.kind.rawValue
            self.failure = failure
        }
    }

    /// The line shown while the status cannot be read (a damaged file):
    /// `json` the `--json` error document, a bar `retime: error` with the
    /// message as waybar's tooltip.
    static func render(failure report: ErrorReport, format: StatusLineFormat) -> String {
        let text = "retime: error"
        switch format {
        case .plain:
            return text
        case .json:
            return JSONWriter.write(Documents.document(["error": .object(["code": .string(report.code), "message": .string(report.message)])]))
        case .waybar:
            return JSONWriter.write(.object(["text": .string(text), "alt": .string("error"), "class": .array([.string("error")]),
                                             "tooltip": .string(report.message)]))
        case .i3blocks:
            return JSONWriter.write(.object(["full_text": .string(text), "short_text": .string("error")]))
        }
    }

    /// The line for `status` (nil: no session) in `format`; `document` is
    /// the `status --json` document; `seconds`: show the time left to the
    /// second (an interval under a minute), else in whole minutes.
    static func render(_ status: SessionStatus?, format: StatusLineFormat, document: JSONValue, seconds: Bool) -> String {
        let text = status.map { Self.text(of: $0, seconds: seconds) } ?? ""
        switch format {
        case .plain:
            return text
        case .json:
            return JSONWriter.write(document)
        case .waybar:
            var object: [String: JSONValue] = ["text": .string(text), "alt": .string(kind(of: status)),
                                               "class": .array(classes(of: status).map(JSONValue.string)),
                                               "tooltip": .string(status.map { tooltip(of: $0, seconds: seconds) } ?? "no focus session")]
            if let progress = status?.progress { object["percentage"] = .int(Int64((progress * 100).rounded(.down))) }
            return JSONWriter.write(.object(object))
        case .i3blocks:
            let short = status.map { left(of: $0, seconds: seconds) } ?? ""
            return JSONWriter.write(.object(["full_text": .string(text), "short_text": .string(short)]))
        }
    }

    /// `focus 24m`, `focus paused`, `focus 12m` (elapsed, open-ended).
    static func text(of status: SessionStatus, seconds: Bool) -> String {
        (status.groupName ?? "(deleted group)") + " " + left(of: status, seconds: seconds)
    }

    /// The time left (or, open-ended, the time elapsed), or `paused`.
    static func left(of status: SessionStatus, seconds: Bool) -> String {
        if status.session.isPaused { return "paused" }
        return clock(status.remaining ?? status.elapsed, seconds: seconds, roundingUp: status.remaining != nil)
    }

    /// `1h05m`/`24m` in whole minutes (a countdown rounds up: 25m just
    /// after a 25-minute start), `1:05:00`/`24:13` to the second.
    static func clock(_ interval: TimeInterval, seconds: Bool, roundingUp: Bool) -> String {
        let unit: TimeInterval = seconds ? 1 : 60
        let whole = Int(max(0, (interval / unit).rounded(roundingUp ? .up : .down)))
        if seconds {
            let (h, m, s) = (whole / 3_600, whole / 60 % 60, whole % 60)
            return h > 0 ? "\(h):" + pad(m) + ":" + pad(s) : "\(m):" + pad(s)
        }
        return whole >= 60 ? "\(whole / 60)h" + pad(whole % 60) + "m" : "\(whole)m"
    }

    private static func pad(_ value: Int) -> String { value < 10 ? "0\(value)" : "\(value)" }

    private static func kind(of status: SessionStatus?) -> String {
        guard let status else { return "idle" }
        return status.session.isPaused ? "paused" : "active"
    }

    private static func classes(of status: SessionStatus?) -> [String] {
        [kind(of: status)] + (status?.session.strict == true ? ["strict"] : [])
    }

    private static func tooltip(of status: SessionStatus, seconds: Bool) -> String {
        var parts = [(status.groupName ?? "(deleted group)") + ": " + (status.session.isPaused ? "paused" : status.remaining == nil
            ? clock(status.elapsed, seconds: seconds, roundingUp: false) + " so far, open-ended"
            : left(of: status, seconds: seconds) + " left")]
        parts.append("focused " + DurationValue.format(status.focused))
        if status.session.strict { parts.append("strict") }
        return parts.joined(separator: " · ")
    }
}
