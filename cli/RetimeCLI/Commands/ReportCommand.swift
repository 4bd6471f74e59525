#if canImport(Glibc)
import Domain
import FoundationEssentials
import Glibc
import JSONDocument
#endif

/// `retime report`: focused time and sessions per day, week or group, with a
/// bar chart for people and CSV or JSON for scripts. Without --since or
/// --until, a person sees the last 7 days (28 by week) and is told so;
/// `--json` and `--csv` cover all of history.
struct ReportCommand: RetimeCommand {
    static let spec = CommandSpec("report", summary: "Total focused time and sessions per day, week or group.",
                                  discussion: "Without --since or --until, the last 7 days (28 with --by week); --json and --csv cover all of history.",
                                  options: [
        .value("since", "DATE", help: "From this date: YYYY-MM-DD, a date-time, today, yesterday or -Nd."),
        .value("until", "DATE", help: "Before this date (same forms)."),
        .value("by", "BUCKET", help: "day (default), week (ISO weeks), group, tag, or group,tag (each group's time by tag).",
               choices: ["day", "week", "group", "tag", "group,tag"]),
        .value("group", "NAME", help: "Only this group's sessions.", names: .groups),
        .value("tag", "TAG", help: "Only sessions with this tag."),
        .flag("csv", help: "Comma-separated values with a header line."),
    ])

    let since: Date?, until: Date?, grouping: ReportGrouping, csv: Bool, group: String?, tag: String?
    /// How many days a bare report shows, and from when (local midnight).
    let windowDays: Int, windowStart: Date?

    init(_ parsed: ParsedCommand, values: DateValue) throws(UsageError) {
        (since, until) = try values.range(parsed)
        let by = parsed.value("by") ?? "day"
        guard let grouping = ReportGrouping(rawValue: by.lowercased()) else {
            throw UsageError(.invalidValue, "invalid value '\(by)' for --by", hint: "give day, week, group, tag or group,tag",
                             command: parsed.commandName)
        }
        self.grouping = grouping
        csv = parsed.flag("csv")
        group = parsed.value("group")
        tag = parsed.value("tag")
        windowDays = grouping == .week ? 28 : 7
        windowStart = try? values.date("-\(windowDays - 1)d", option: "since")
    }

    struct Services: CommandServices {
        @Resolved var report: ReportUseCase
        @Resolved var allowances: any AllowanceLedger
        @Resolved var groups: any GroupRepository
    }

    func run(_ services: Services, _ io: CommandIO) async throws -> CommandResult {
        let windowed = !io.json && !csv && since == nil && until == nil && windowStart != nil
        let report = try await services.report.execute(since: windowed ? windowStart : since, until: until, by: grouping,
                                                       groupNamed: group, tag: tag)
        let spent = try await AllowanceSpent.days(try await services.allowances.allSpending(), names: { try await services.groups.names() },
                                                  since: windowed ? windowStart : since, until: until)
        // Only the form asked for is made: over years of history, the
        // other (2,000 rows drawn, or a tree of 2,000 buckets) cost more
        // than summing the sessions.
        guard io.json else {
            var human = csv ? Self.csv(report) : ReportChart.render(report, width: io.console.width, style: io.style)
            if windowed { human += "\n" + io.style.dim("The last \(windowDays) days; --since DATE shows more.") }
            if !csv, !spent.isEmpty { human += "\n\n" + AllowanceSpent.render(spent) }
            return CommandResult(json: .null, human: human)
        }
        var json = Self.document(report)
        if case .object(var members) = json {
            members["allowanceSpent"] = AllowanceSpent.json(spent)
            json = .object(members)
        }
        return CommandResult(json: json, human: "")
    }

    static func document(_ report: Report) -> JSONValue {
        Documents.document([
            "since": Documents.time(report.since), "until": Documents.time(report.until), "by": .string(report.grouping.rawValue),
            "buckets": .array(report.buckets.map { bucket in
                .object(["key": .string(bucket.key), "focusedSeconds": .double(bucket.focusedSeconds),
                         "sessions": .int(Int64(bucket.sessions)), "completed": .int(Int64(bucket.completed)),
                         "stopped": .int(Int64(bucket.stopped)), "rounds": .int(Int64(bucket.rounds))])
            }),
            "totalFocusedSeconds": .double(report.totalFocusedSeconds),
            "totalSessions": .int(Int64(report.totalSessions)),
            "completionRate": report.total.completionRate.map(JSONValue.double) ?? .null,
            "totalRounds": .int(Int64(report.total.rounds)),
        ])
    }

    static func csv(_ report: Report) -> String {
        (["key,focusedSeconds,sessions,completed,stopped"] + report.buckets.map { bucket in
            [bucket.key, JSONWriter.write(.double(bucket.focusedSeconds)), String(bucket.sessions), String(bucket.completed),
             String(bucket.stopped)].map(CSVTable.field).joined(separator: ",")
        }).joined(separator: "\n")
    }
}

/// The report as a bar chart of Unicode blocks, scaled to the terminal.
enum ReportChart {
    /// Eighths of a cell, for bars with sub-cell resolution.
    static let eighths = ["", "▏", "▎", "▍", "▌", "▋", "▊", "▉"]
    private static let fullBlock = Array("█".utf8)

    /// A labelled table, a row per bucket (for days, their weekday), with
    /// each row's bar at its end. Days or weeks without sessions before the
    /// first and after the last are left out and counted in a line; those
    /// between stay, so the gaps show. Durations read as `log` writes them.
    static func render(_ report: Report, width: Int, style: Style) -> String {
        guard report.totalSessions > 0 || report.totalFocusedSeconds > 0 else {
            return report.since == nil && report.until == nil
                ? "No sessions yet: start one with 'retime start --for 25m'." : "No sessions in this range."
        }
        var buckets = report.buckets
        var trimmed = 0
        if !report.grouping.byName {
            let used = { (bucket: Report.Bucket) in bucket.sessions > 0 || bucket.focusedSeconds > 0 }
            let first = buckets.firstIndex(where: used) ?? 0, last = buckets.lastIndex(where: used) ?? buckets.count - 1
            trimmed = buckets.count - (last - first + 1)
            buckets = Array(buckets[first...last])
        }
        let days = report.grouping == .day
        let header = [report.grouping.rawValue] + (days ? ["weekday"] : []) + ["focused", "sessions", "completed"]
        let rows = buckets.map { bucket in
            [bucket.key] + (days ? [weekday(bucket.key)] : []) + [DurationValue.format(bucket.focusedSeconds), "\(bucket.sessions)",
                                                                 bucket.completionRate.map { "\(Int(($0 * 100).rounded()))%" } ?? "-"]
        }
        let widths = header.indices.map { column in max(header[column].count, rows.map { DisplayWidth.of($0[column]) }.max() ?? 0) }
        // The key and weekday read left to right; the numbers line up on the right.
        let numeric = Set((days ? 2 : 1)..<header.count)
        func line(_ cells: [String]) -> String {
            cells.indices.map { numeric.contains($0) ? padLeft(cells[$0], widths[$0]) : pad(cells[$0], widths[$0]) }.joined(separator: "  ")
        }
        let tableWidth = widths.reduce(0, +) + 2 * (widths.count - 1)
        // What the terminal leaves; too narrow for a bar, the table alone.
        let barWidth = width - tableWidth - 2 >= 4 ? width - tableWidth - 2 : 0
        // Bars in proportion to the durations shown: buckets that all read
        // 0s (a few tenths of a second) draw no bar, not a full one.
        let shown = { (bucket: Report.Bucket) in bucket.focusedSeconds.isFinite ? bucket.focusedSeconds.rounded() : 0 }
        let most = buckets.map(shown).max() ?? 0
        var lines = [style.dim(line(header))]
        for (index, bucket) in buckets.enumerated() {
            let bar = Self.bar(most > 0 ? shown(bucket) / most : 0, width: barWidth)
            lines.append(line(rows[index]) + (bar.isEmpty ? "" : "  " + style.green(bar)))
        }
        if trimmed > 0 {
            let unit = report.grouping == .week ? "week" : "day"
            lines.append(style.dim("\(trimmed) \(unit)\(trimmed == 1 ? "" : "s") without sessions in the range, before the first or after the last, not shown."))
        }
        let total = report.total
        let rate = total.completionRate.map { ", \(Int(($0 * 100).rounded()))% completed" } ?? ""
        let rounds = total.rounds == 0 ? "" : ", \(total.rounds) cycle round\(total.rounds == 1 ? "" : "s") completed"
        lines.append(style.bold("Total \(DurationValue.format(total.focusedSeconds)) focused in \(total.sessions) session\(total.sessions == 1 ? "" : "s")\(rate)\(rounds)."))
        return lines.joined(separator: "\n")
    }

    /// `Mon` for `2026-11-23` (1970-01-01 was a Thursday).
    static func weekday(_ key: String) -> String {
        // Read digit by digit: `split` and `Int(_:)` cost more than the rest of a row.
        var parts: [Int] = [], value = 0, digits = 0
        for byte in key.utf8 {
            if byte >= UInt8(ascii: "0"), byte <= UInt8(ascii: "9"), digits < 9 {
                value = value * 10 + Int(byte - UInt8(ascii: "0"))
                digits += 1
            } else if byte == UInt8(ascii: "-"), digits > 0 {
                parts.append(value)
                (value, digits) = (0, 0)
            } else {
                return ""
            }
        }
        if digits > 0 { parts.append(value) }
        guard parts.count == 3, let day = LocalDays.day(year: parts[0], month: parts[1], day: parts[2]) else { return "" }
        let names = ["Thu", "Fri", "Sat", "Sun", "Mon", "Tue", "Wed"]
        return names[Int(((day % 7) + 7) % 7)]
    }

    /// `fraction` of `width` cells in full and eighth blocks.
    static func bar(_ fraction: Double, width: Int) -> String {
        let eighthsTotal = Int((min(1, max(0, fraction)) * Double(width * 8)).rounded())
        // As bytes: `String(repeating:count:)` appends the block cell by cell.
        var bytes: [UInt8] = []
        bytes.reserveCapacity(eighthsTotal / 8 * fullBlock.count)
        for _ in 0..<eighthsTotal / 8 { bytes.append(contentsOf: fullBlock) }
        return String(decoding: bytes, as: UTF8.self) + eighths[eighthsTotal % 8]
    }

    private static func pad(_ text: String, _ width: Int) -> String { DisplayWidth.pad(text, to: width) }

    private static func padLeft(_ text: String, _ width: Int) -> String { DisplayWidth.padLeft(text, to: width) }
}
