@testable import RetimeCLI
import Domain
import Foundation
import Testing

@Suite("The report's bar chart")
struct ReportChartTests {
    static let report = Report(since: nil, until: nil, grouping: .day, buckets: [
        .init(key: "2026-11-20", focusedSeconds: 7_200, sessions: 3, completed: 2, stopped: 1),
        .init(key: "2026-11-21", focusedSeconds: 0),
        .init(key: "2026-11-22", focusedSeconds: 3_600, sessions: 1, completed: 1),
    ])

    @Test("fits the terminal's width; the biggest bucket fills the bar; the others are in proportion", arguments: [60, 80, 200])
    func width(columns: Int) {
        let lines = ReportChart.render(Self.report, width: columns, style: Style(enabled: false)).split(separator: "\n")
        #expect(lines.count == 5)
        for line in lines.dropLast() { #expect(line.count <= columns, "\(line)") }
        let bars = lines.dropFirst().dropLast().map { line in line.filter { "█▉▊▋▌▍▎▏".contains($0) } }
        let full = bars[0].count
        #expect(full >= 5 && bars[0].allSatisfy { $0 == "█" })
        #expect(bars[1].isEmpty, "an empty day has no bar")
        let half = bars[2].reduce(0.0) { $0 + ($1 == "█" ? 1 : Double(ReportChart.eighths.firstIndex(of: String($1)) ?? 0) / 8) }
        #expect(abs(half - Double(full) / 2) <= 0.125)
        #expect(lines.last == "Total 3h focused in 4 sessions, 75% completed.")
    }

    @Test("a labelled table: bucket, weekday, focused, sessions, completed; durations as log writes them")
    func labels() {
        let lines = ReportChart.render(Self.report, width: 80, style: Style(enabled: false)).split(separator: "\n").map(String.init)
        #expect(lines[0] == "day         weekday  focused  sessions  completed")
        #expect(lines[1].hasPrefix("2026-11-20  Fri           2h         3        67%  █"))
        #expect(lines[2] == "2026-11-21  Sat           0s         0          -", "an empty day between two is kept, without a bar")
        #expect(!ReportChart.render(Self.report, width: 40, style: Style(enabled: false)).contains("█"), "too narrow: the table alone")
        let odd = Report(since: nil, until: nil, grouping: .day, buckets: [.init(key: "2026-11-23", focusedSeconds: 1_499.6, sessions: 1, completed: 1)])
        #expect(ReportChart.render(odd, width: 80, style: Style(enabled: false)).contains("25m "), "to the nearest second, like log")
        let tenths = Report(since: nil, until: nil, grouping: .day, buckets: [.init(key: "2026-11-23", focusedSeconds: 0.3, sessions: 1, completed: 1),
                                                                               .init(key: "2026-11-24", focusedSeconds: 0.2, sessions: 1, completed: 1)])
        #expect(!ReportChart.render(tenths, width: 80, style: Style(enabled: false)).contains("█"), "every bucket reads 0s: no bar (issue 29)")
    }

    @Test("empty days before the first and after the last are left out and counted")
    func trimmed() {
        let report = Report(since: nil, until: nil, grouping: .day, buckets: [.init(key: "2026-11-18"), .init(key: "2026-11-19")]
                            + Self.report.buckets + [.init(key: "2026-11-23")])
        let lines = ReportChart.render(report, width: 80, style: Style(enabled: false)).split(separator: "\n").map(String.init)
        #expect(lines.count == 6 && lines[1].hasPrefix("2026-11-20"))
        #expect(lines[4] == "3 days without sessions in the range, before the first or after the last, not shown.")
    }

    @Test("colour only when the style allows it")
    func colour() {
        #expect(!ReportChart.render(Self.report, width: 80, style: Style(enabled: false)).contains("\u{1B}["))
        #expect(ReportChart.render(Self.report, width: 80, style: Style(enabled: true)).contains("\u{1B}[32m"))
    }

    @Test("eighth blocks give a bar sub-cell resolution", arguments: [(0.0, ""), (1.0 / 80, "▏"), (0.5 / 10, "▌"), (1.0, "██████████")])
    func bars(fraction: Double, bar: String) {
        #expect(ReportChart.bar(fraction, width: 10) == bar)
    }

    @Test("a day's weekday, before 1970 too; a key that is not a day has none")
    func weekdays() {
        #expect(ReportChart.weekday("2026-11-23") == "Mon" && ReportChart.weekday("2026-11-29") == "Sun")
        #expect(ReportChart.weekday("1970-01-01") == "Thu" && ReportChart.weekday("1969-12-31") == "Wed")
        #expect(ReportChart.weekday("2024-02-29") == "Thu")
        for key in ["2026-W48", "2026-11", "2026-11-23-1", "-2026-11-23", "2026--11-23", "2026-13-01", "99999999999-01-01", ""] {
            #expect(ReportChart.weekday(key) == "", "\(key)")
        }
    }

    @Test("an empty report says how to begin, or that the range holds nothing")
    func empty() {
        let style = Style(enabled: false)
        #expect(ReportChart.render(Report(since: nil, until: nil, grouping: .day, buckets: []), width: 80, style: style)
            == "No sessions yet: start one with 'retime start --for 25m'.")
        let ranged = Report(since: Date(timeIntervalSince1970: 0), until: nil, grouping: .day, buckets: [.init(key: "1970-01-01")])
        #expect(ReportChart.render(ranged, width: 80, style: style) == "No sessions in this range.")
    }
}
