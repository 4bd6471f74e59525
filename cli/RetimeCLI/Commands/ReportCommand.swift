import Domain
import Foundation

/// `retime report`: focused time and sessions per day, week or group, with a
/// bar chart for people and CSV or JSON for scripts.
struct ReportCommand: RetimeCommand {
    static let spec = CommandSpec("report", summary: "Total focused time and sessions per day, week or group.", options: [
        .value("since", "DATE", help: "From this date: YYYY-MM-DD, a date-time, today, yesterday or -Nd."),
        .value("until", "DATE", help: "Before this date (same forms)."),
        .value("by", "BUCKET", help: "day (default), week (ISO weeks) or group.", choices: ["day", "week", "group"]),
        .flag("csv", help: "Comma-separated values with a header line."),
    ])

    let since: Date?, until: Date?, grouping: ReportGrouping, csv: Bool

    init(_ parsed: ParsedCommand, values: DateValue) throws(UsageError) {
        (since, until) = try values.range(parsed)
        let by = parsed.value("by") ?? "day"
        guard let grouping = ReportGrouping(rawValue: by.lowercased()) else {
            throw UsageError(.invalidValue, "invalid value '\(by)' for --by", hint: "give day, week or group", command: parsed.commandName)
        }
        self.grouping = grouping
        csv = parsed.flag("csv")
    }

    func run(_ context: CommandContext) async throws -> CommandResult {
        let report = try await context.resolve(ReportUseCase.self).execute(since: since, until: until, by: grouping)
        let human = csv ? Self.csv(report) : ReportChart.render(report, width: context.console.width, style: context.style)
        return CommandResult(json: Self.document(report), human: human)
    }

    static func document(_ report: Report) -> JSONValue {
        Documents.document([
            "since": Documents.time(report.since), "until": Documents.time(report.until), "by": .string(report.grouping.rawValue),
            "buckets": .array(report.buckets.map { bucket in
                .object(["key": .string(bucket.key), "focusedSeconds": .double(bucket.focusedSeconds),
                         "sessions": .int(Int64(bucket.sessions)), "completed": .int(Int64(bucket.completed)),
                         "stopped": .int(Int64(bucket.stopped))])
            }),
            "totalFocusedSeconds": .double(report.totalFocusedSeconds),
            "totalSessions": .int(Int64(report.totalSessions)),
            "completionRate": report.total.completionRate.map(JSONValue.double) ?? .null,
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

    static func render(_ report: Report, width: Int, style: Style) -> String {
        guard report.totalSessions > 0 || report.totalFocusedSeconds > 0 else {
            return report.since == nil && report.until == nil
                ? "No sessions yet: start one with 'retime start --for 25m'." : "No sessions in this range."
        }
        let labelWidth = report.buckets.map(\.key.count).max() ?? 10
        let values = report.buckets.map { DurationValue.format($0.focusedSeconds.rounded()) }
        let counts = report.buckets.map { "\($0.sessions)" }
        let valueWidth = values.map(\.count).max() ?? 1, countWidth = counts.map(\.count).max() ?? 1
        let barWidth = max(10, width - labelWidth - valueWidth - countWidth - 6)
        let most = report.buckets.map(\.focusedSeconds).max() ?? 0
        var lines: [String] = []
        for (index, bucket) in report.buckets.enumerated() {
            let bar = Self.bar(most > 0 ? bucket.focusedSeconds / most : 0, width: barWidth)
            lines.append(pad(bucket.key, labelWidth) + "  " + style.green(pad(bar, barWidth)) + " "
                         + padLeft(values[index], valueWidth) + " " + style.dim(padLeft(counts[index], countWidth)))
        }
        let total = report.total
        let rate = total.completionRate.map { ", \(Int(($0 * 100).rounded()))% completed" } ?? ""
        lines.append(style.bold("Total \(DurationValue.format(total.focusedSeconds.rounded())) focused in \(total.sessions) session\(total.sessions == 1 ? "" : "s")\(rate)."))
        return lines.joined(separator: "\n")
    }

    /// `fraction` of `width` cells in full and eighth blocks.
    static func bar(_ fraction: Double, width: Int) -> String {
        let eighthsTotal = Int((min(1, max(0, fraction)) * Double(width * 8)).rounded())
        return String(repeating: "█", count: eighthsTotal / 8) + eighths[eighthsTotal % 8]
    }

    private static func pad(_ text: String, _ width: Int) -> String {
        text.count >= width ? text : text + String(repeating: " ", count: width - text.count)
    }

    private static func padLeft(_ text: String, _ width: Int) -> String {
        text.count >= width ? text : String(repeating: " ", count: width - text.count) + text
    }
}
