import Adapters
import Domain
import Foundation
import Testing

@Suite("The store across real processes", .serialized)
struct MultiProcessStoreTests {
    @Test("20 processes x 50 read-modify-write increments keep all 1,000")
    func concurrentIncrements() throws {
        let directory = TemporaryDirectory().file("store")
        let probes = try (0..<20).map { _ in try ProbeProcess(["increment", directory, "50"]) }
        #expect(probes.map { $0.wait() }.allSatisfy { $0 == 0 })
        #expect(try JSONFileStore(directory: directory).values(of: "counter")["n"] == .int(1_000))
    }

    @Test("a writer killed at 200 random moments always leaves the old or the new content")
    func killedWriter() throws {
        let directory = TemporaryDirectory().file("store")
        let reader = JSONFileStore(directory: directory)
        var lastSeen = 0
        for _ in 0..<200 {
            let probe = try ProbeProcess(["write-loop", directory])
            probe.waitUntilReady()
            usleep(UInt32.random(in: 0...15_000))
            probe.kill()
            let values = try reader.values(of: "blob")
            guard case .object(let blob)? = values["value"], case .int(let k)? = blob["k"],
                  case .string(let fill)? = blob["fill"] else {
                if lastSeen == 0 && values.isEmpty { continue } // killed before its first write
                Issue.record("unexpected content: \(values.keys)")
                return
            }
            let letter = Character(Unicode.Scalar(UInt8(97 + Int(k) % 26)))
            #expect(fill.count == 60_000 && fill.allSatisfy { $0 == letter }, "generation \(k) is whole")
            #expect(Int(k) >= lastSeen, "never older than what was already on disk")
            lastSeen = Int(k)
        }
        #expect(lastSeen > 0)
    }

    @Test("an appender killed mid-write loses no complete line, and appends go on after it")
    func killedAppender() async throws {
        let directory = TemporaryDirectory().file("history")
        let logs = InMemoryLogHandler()
        let history = JSONLinesSessionHistory(directory: directory, deviceID: "dev", logger: Logger(label: "t", handler: logs))
        for _ in 0..<20 {
            let probe = try ProbeProcess(["append-loop", directory, "dev"])
            probe.waitUntilReady()
            usleep(UInt32.random(in: 0...20_000))
            probe.kill()
        }
        let before = try await history.sessions(matching: .all)
        let extra = Session(groupId: GroupID(), startedAt: Date(timeIntervalSince1970: 1_700_000_000), plannedEnd: nil)
            .ending(at: Date(timeIntervalSince1970: 1_700_000_060), outcome: .stopped)
        try await history.append(extra)
        let after = try await history.sessions(matching: .all)
        #expect(after.count == before.count + 1)
        #expect(after.contains(extra))
        let complete = try FileManager.default.subpathsOfDirectory(atPath: directory).filter { $0.hasSuffix(".jsonl") }
            .map { try String(contentsOfFile: directory + "/" + $0, encoding: .utf8) }
            .flatMap { $0.split(separator: "\n") }.filter { $0.hasSuffix("}") }.count
        #expect(after.count == complete)
    }
}
