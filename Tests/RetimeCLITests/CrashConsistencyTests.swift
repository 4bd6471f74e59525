#if canImport(Glibc)
import Glibc
#endif
import Foundation
import Testing

/// Processes killed at random instants leave a state the next command and
/// `doctor` agree on (semantics.md, "A crash leaves a consistent state").
@Suite("Crash consistency through the binary")
struct CrashConsistencyTests {
    let retime = RetimeProcess()

    func blocksCheck(_ outcome: RetimeProcess.Outcome) -> [String: String]? {
        (outcome.json["checks"] as? [[String: String]])?.first { $0["name"] == "blocks" }
    }

    @Test("120 SIGKILLs during start: each leaves no session, or one whose block is up or raised by the next command")
    func killsDuringStart() throws {
        try retime.run("group", "create", "g", "--block", "a.example.com")
        // How long a whole start takes here (debug or release, loaded or not).
        let began = Date()
        try retime.run("start", "g")
        let length = UInt32(Date().timeIntervalSince(began) * 1_000_000)
        try retime.run("stop")
        var generator = SystemRandomNumberGenerator()
        var outcomes: [String: Int] = [:]
        for round in 0..<120 {
            let start = try retime.start(["start", "g"])
            // Spread over the command's life: before it reads anything, while
            // it writes the session, while it raises the block, after it.
            usleep(UInt32.random(in: 0...length, using: &generator))
            kill(start.process.processIdentifier, SIGKILL)
            _ = try retime.finish(start)

            let before = blocksCheck(try retime.run("doctor", "--json"))
            let active = (try retime.run("status", "--json").json["active"] as? Bool) == true
            if active {
                // A session without its block is reported by doctor until a
                // command raises it; never called "ok".
                if before?["detail"]?.contains("down") == true { outcomes["session, block down", default: 0] += 1 }
                #expect(before?["status"] != "ok" || before?["detail"]?.contains("the running session's block is") == true,
                        "round \(round): doctor called \(before ?? [:]) fine")
            }
            let after = blocksCheck(try retime.run("doctor", "--json"))
            #expect(after?["status"] == "ok", "round \(round): after status, doctor says \(after ?? [:])")
            let shield = (try? Data(contentsOf: URL(fileURLWithPath: retime.deviceFile("store/shield.json")))) ?? Data("{}".utf8)
            let values = (try JSONSerialization.jsonObject(with: shield) as? [String: Any])?["values"] as? [String: Any]
            let recorded = values?["block"] != nil
            #expect(recorded == active, "round \(round): session \(active), block \(recorded)")
            outcomes[active ? "session" : "no session", default: 0] += 1
            if active { try retime.run("stop") }
        }
        // The kills did land at different moments (else this proved little).
        #expect(outcomes["session", default: 0] > 0 && outcomes["no session", default: 0] > 0, "\(outcomes)")
    }
}
