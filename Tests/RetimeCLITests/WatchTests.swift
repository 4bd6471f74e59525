import Foundation
import Testing

/// `status --watch` redrawing a running session, through the binary.
@Suite("retime status --watch")
struct WatchTests {
    @Test("redraws each second of the session until it ends, elapsed and left adding up to its length, then exits 0")
    func watchUntilEnd() throws {
        let retime = RetimeProcess()
        try retime.run("start", "--for", "3s")
        let outcome = try retime.run("status", "--watch")
        #expect(outcome.status == 0)
        let lines = outcome.out.split(separator: "\n")
        #expect(lines.last == "The session has ended.")
        #expect(lines.dropLast().count >= 2, "at least two redraws in three seconds: \(lines)")
        var lefts: [Int] = []
        for line in lines.dropLast() {
            #expect(line.hasPrefix("focus · "), "\(line)")
            let match = try #require(line.firstMatch(of: /(\d+)s elapsed · (\d+)s left/), "\(line)")
            #expect(Int(match.1)! + Int(match.2)! == 3, "\(line)")
            lefts.append(Int(match.2)!)
        }
        #expect(lefts == lefts.sorted(by: >) && Set(lefts).count == lefts.count, "left counts down: \(lefts)")
        #expect(try retime.run("log", "--json").json["sessions"].flatMap { ($0 as? [Any])?.count } == 1)
    }
}
