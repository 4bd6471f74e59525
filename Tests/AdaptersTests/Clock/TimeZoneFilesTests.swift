@testable import Adapters
import Domain
import Foundation
import Testing

/// The tz database's files read without ICU (`SystemTimeZone`, `TZifFile`),
/// checked against an independent reader: Python's `zoneinfo` over the same
/// files, at every transition of 1900-2100 (a second before, at, and after
/// it) and at instants spread over 1900-2400, where only the files' footer
/// rules know the answer.
@Suite("Time-zone files")
struct TimeZoneFilesTests {
    /// Zones the issue names (Lord Howe's half-hour DST, the southern
    /// hemisphere, zones without DST, negative DST in Dublin), then every
    /// zone Python knows, in a fixed sample.
    static let named = ["Europe/Berlin", "America/New_York", "Australia/Lord_Howe", "America/Santiago", "Australia/Sydney",
                        "Pacific/Auckland", "Asia/Kolkata", "Asia/Tokyo", "Africa/Casablanca", "Europe/Dublin", "America/St_Johns",
                        "Pacific/Chatham", "Asia/Tehran", "America/Sao_Paulo", "Antarctica/Troll", "UTC", "Etc/GMT+5", "EST5EDT"]

    @Test("offsets and DST flags match zoneinfo at every transition and across 1900-2400, in every zone")
    func matchesZoneinfo() throws {
        let zones = Self.named + (try Self.allZones())
        var cases: [[Any]] = []
        var mine: [(offset: Int, dst: Bool)] = []
        var unreadable: [String] = []
        let start = Timestamp.parse("1900-01-01T00:00:00Z")!, end = Timestamp.parse("2100-01-01T00:00:00Z")!
        for zone in Set(zones).sorted() {
            guard let rules = SystemTimeZone.named(zone) else { unreadable.append(zone); continue }
            var instants: [Int64] = []
            var cursor = start
            while let next = rules.nextTransition(after: cursor), next < end {
                let second = Int64(next.timeIntervalSince1970)
                instants += [second - 1, second, second + 1]
                cursor = next
            }
            // Spread samples, a prime step apart so they fall at every hour of the day.
            var second = Int64(start.timeIntervalSince1970)
            let last = Int64(Timestamp.parse("2400-01-01T00:00:00Z")!.timeIntervalSince1970)
            while second < last {
                instants.append(second)
                second += 7_777_777
            }
            for instant in instants {
                cases.append([zone, instant])
                mine.append((rules.offset(atSecond: instant), rules.isDaylightSaving(at: Date(timeIntervalSince1970: Double(instant)))))
            }
        }
        #expect(unreadable.isEmpty, "\(unreadable)")
        let theirs = try Self.zoneinfo(cases)
        #expect(theirs.count == mine.count)
        var mismatches: [String] = []
        for (index, (ours, expected)) in zip(mine, theirs).enumerated() where ours.offset != expected.offset || ours.dst != expected.dst {
            mismatches.append("\(cases[index]): retime \(ours), zoneinfo \(expected)")
        }
        #expect(mismatches.isEmpty, "\(mismatches.count) of \(mine.count): \(mismatches.prefix(10))")
        #expect(cases.count > 100_000)
    }

    @Test("a zone's footer rule alone (a POSIX TZ string) gives the file's offsets after its last transition")
    func posixRule() throws {
        let berlin = try #require(SystemTimeZone.named("Europe/Berlin"))
        let rule = SystemTimeZone.lookUp(environment: ["TZ": "CET-1CEST,M3.5.0,M10.5.0/3"])
        #expect(rule.problem == nil)
        #expect(rule.rules.identifier == "CET-1CEST,M3.5.0,M10.5.0/3")
        var second = Int64(Timestamp.parse("2040-01-01T00:00:00Z")!.timeIntervalSince1970)
        while second < Int64(Timestamp.parse("2060-01-01T00:00:00Z")!.timeIntervalSince1970) {
            #expect(rule.rules.offset(atSecond: second) == berlin.offset(atSecond: second))
            second += 3_599 * 7
        }
        let lordHowe = SystemTimeZone.lookUp(environment: ["TZ": "<+1030>-10:30<+11>-11,M10.1.0,M4.1.0"]).rules
        #expect(lordHowe.offset(at: Timestamp.parse("2050-01-01T00:00:00Z")!) == 39_600)
        #expect(lordHowe.offset(at: Timestamp.parse("2050-07-01T00:00:00Z")!) == 37_800)
        #expect(SystemTimeZone.lookUp(environment: ["TZ": "<+0530>-5:30"]).rules.offset(atSecond: 0) == 19_800)
        #expect(SystemTimeZone.lookUp(environment: ["TZ": "EST5"]).rules.offset(atSecond: 0) == -18_000)
    }

    @Test("TZ is read as the C library reads it; what names no zone is UTC with a reason to show")
    func environment() throws {
        let berlin = try #require(SystemTimeZone.named("Europe/Berlin"))
        for value in ["Europe/Berlin", ":Europe/Berlin", "/usr/share/zoneinfo/Europe/Berlin"] {
            let found = SystemTimeZone.lookUp(environment: ["TZ": value])
            #expect(found.rules == berlin, "\(value)")
            #expect(found.problem == nil)
        }
        #expect(SystemTimeZone.lookUp(environment: ["TZ": ""]).rules == .utc)
        for bad in ["Mars/Olympus", "../../etc/passwd", "/etc/passwd", "/no/such/file", "12345"] {
            let found = SystemTimeZone.lookUp(environment: ["TZ": bad])
            #expect(found.rules.offset(atSecond: 1_800_000_000) == 0, "\(bad)")
            #expect(found.problem?.contains("TZ=\(bad)") == true, "\(bad)")
        }
        // A device, a FIFO, or a file far larger than any zone file is no zone, read or not.
        let big = FileManager.default.temporaryDirectory.path + "/retime-bigtz-\(UUID().uuidString)"
        var bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: "/usr/share/zoneinfo/Europe/Berlin")))
        bytes += [UInt8](repeating: 0, count: SystemTimeZone.largestFile)
        try Data(bytes).write(to: URL(fileURLWithPath: big))
        let fifo = big + ".fifo"
        #expect(mkfifo(fifo, 0o600) == 0)
        defer { try? FileManager.default.removeItem(atPath: big); try? FileManager.default.removeItem(atPath: fifo) }
        for odd in ["/dev/zero", "/dev/urandom", fifo, big] {
            let found = SystemTimeZone.lookUp(environment: ["TZ": odd])
            #expect(found.rules == .utc && found.problem?.contains("TZ=\(odd)") == true, "\(odd)")
        }
        #expect(SystemTimeZone.named("../etc/passwd") == nil)
        #expect(TZifFile.rules(Array("TZif2 not really".utf8), identifier: "x") == nil)
        #expect(TZifFile.rules([], identifier: "x") == nil)
    }

    @Test("the zone kept for a process follows a change of TZ, and is read again after forget()")
    func currentFollowsTZ() {
        #expect(SystemTimeZone.current(["TZ": "Asia/Tokyo"]).rules.identifier == "Asia/Tokyo")
        #expect(SystemTimeZone.current(["TZ": "Europe/Berlin"]).rules.identifier == "Europe/Berlin")
        SystemTimeZone.forget()
        #expect(SystemTimeZone.current(["TZ": "Europe/Berlin"]).rules.identifier == "Europe/Berlin")
        #expect(SystemTimeZone.processZoneVariables()["TZ"] == ProcessInfo.processInfo.environment["TZ"])
    }

    @Test("a truncated or corrupt file is refused, never read past its end")
    func corruptFiles() throws {
        let bytes = try [UInt8](Data(contentsOf: URL(fileURLWithPath: "/usr/share/zoneinfo/America/New_York")))
        for length in stride(from: 0, to: bytes.count, by: 7) {
            _ = TZifFile.rules(Array(bytes[..<length]), identifier: "cut")
        }
        var flipped = bytes
        for index in stride(from: 20, to: min(80, bytes.count), by: 1) {
            flipped[index] ^= 0xFF
            _ = TZifFile.rules(flipped, identifier: "flipped")
            flipped[index] = bytes[index]
        }
    }

    static func allZones() throws -> [String] {
        try python("import zoneinfo, json; print(json.dumps(sorted(zoneinfo.available_timezones())))", input: Data())
            .compactMap { $0 as? String }
    }

    /// zoneinfo's UTC offset and DST flag at each (zone, unix second).
    static func zoneinfo(_ cases: [[Any]]) throws -> [(offset: Int, dst: Bool)] {
        let script = """
        import json, sys
        from datetime import datetime
        from zoneinfo import ZoneInfo
        zones = {}
        out = []
        for zone, t in json.load(sys.stdin):
            tz = zones.setdefault(zone, ZoneInfo(zone))
            local = datetime.fromtimestamp(t, tz)
            out.append([int(local.utcoffset().total_seconds()), bool(local.dst())])
        print(json.dumps(out))
        """
        return try python(script, input: JSONSerialization.data(withJSONObject: cases)).map { row in
            let pair = row as! [Any]
            return ((pair[0] as! NSNumber).intValue, (pair[1] as! NSNumber).boolValue)
        }
    }

    private static func python(_ script: String, input: Data) throws -> [Any] {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["python3", "-c", script]
        let stdin = Pipe(), stdout = Pipe()
        process.standardInput = stdin
        process.standardOutput = stdout
        try process.run()
        let writer = stdin.fileHandleForWriting
        let written = Thread { writer.write(input); try? writer.close() }
        written.start()
        let data = stdout.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        guard process.terminationStatus == 0, let values = try JSONSerialization.jsonObject(with: data) as? [Any] else {
            throw CocoaError(.featureUnsupported, userInfo: [NSLocalizedDescriptionKey: "python3 with zoneinfo is needed"])
        }
        return values
    }
}
