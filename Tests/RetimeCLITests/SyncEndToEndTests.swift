import Domain
import Foundation
import Testing

/// `device name`, `sync status`, `doctor`'s sync finding and history read
/// from a data folder a sync tool shares, through the built binary, on files
/// laid out as other devices and Syncthing, Nextcloud and rsync leave them
/// (docs/storage.md, "Devices").
@Suite("sync end to end")
struct SyncEndToEndTests {
    var retime = RetimeProcess()

    static let other = "0b1c2d3e-0000-4000-8000-000000000002"
    static let third = "0b1c2d3e-0000-4000-8000-000000000003"
    static let damaged = "0b1c2d3e-0000-4000-8000-000000000004"

    func thisDevice() throws -> String {
        let named = try retime.run("device", "name", "--json")
        return try #require((named.json["device"] as? [String: Any])?["id"] as? String, "\(named.out) \(named.err)")
    }

    func write(_ text: String, to relative: String) throws {
        let path = retime.file(relative)
        try FileManager.default.createDirectory(atPath: (path as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
        try text.write(toFile: path, atomically: false, encoding: .utf8)
    }

    func millis(_ text: String) -> Int64 { Int64(Timestamp.parse(text)!.timeIntervalSince1970 * 1_000) }

    @Test("device name: none set prints the id and says so; a name is kept in devices/<id>/device.json; bad names exit 2, nothing changed")
    func deviceName() throws {
        let unnamed = try retime.run("device", "name")
        let id = try thisDevice()
        #expect(unnamed.status == 0 && unnamed.out.contains(id) && unnamed.out.contains("no name is set"), "\(unnamed.out) \(unnamed.err)")
        #expect(try retime.run("device", "name", "--json").out.contains(#""name":null"#))

        let named = try retime.run("device", "name", "Work laptop")
        #expect(named.status == 0, "\(named.err)")
        #expect(try retime.run("device", "name").out == "Work laptop\n")
        let file = try String(contentsOfFile: retime.file("devices/\(id)/device.json"), encoding: .utf8)
        let document = try #require(try JSONSerialization.jsonObject(with: Data(file.utf8)) as? [String: Any])
        #expect(document["format"] as? String == "retime.device" && document["version"] as? Int == 1
                && document["name"] as? String == "Work laptop", "\(file)")

        for bad in ["", "   ", "tab\there", "new\nline", String(repeating: "x", count: 65)] {
            let refused = try retime.run("device", "name", bad)
            #expect(refused.status == 2 && refused.err.contains("is not a device name"), "\(bad.debugDescription): \(refused.status) \(refused.err)")
        }
        #expect(try String(contentsOfFile: retime.file("devices/\(id)/device.json"), encoding: .utf8) == file, "a refused name changes nothing")
        #expect(try retime.run("device", "name", String(repeating: "é", count: 64)).status == 0, "64 characters, not bytes")
    }

    @Test("sync status: every device with its last change and lag, conflict copies anywhere, unreadable files; this device's seen map written")
    func status() throws {
        #expect(try retime.run("group", "create", "work").status == 0)
        #expect(try retime.run("track", "work", "--from", "2026-11-20T10:00:00Z", "--to", "2026-11-20T11:00:00Z").status == 0)
        let this = try thisDevice()
        #expect(try retime.run("device", "name", "desk").status == 0)
        // This device's newest change: the group's line in its change log
        // (stamped now), later than the tracked session's end.
        let ownLog = try String(contentsOfFile: retime.file("devices/\(this)/changes/groups.jsonl"), encoding: .utf8)
        let ownLine = try #require(try JSONSerialization.jsonObject(with: Data(ownLog.split(separator: "\n").last!.utf8)) as? [String: Any])
        let own = try #require(Int64(String((ownLine["at"] as? String ?? "").prefix { $0 != "-" })))
        let ownText = Timestamp.format(Date(timeIntervalSince1970: Double(own) / 1_000), fractionDigits: 3)
        // Another device: changes to shared suites, a conflict copy of one,
        // a sync tool's temporary (never read), and what it has seen of us:
        // our change of two hours before our newest.
        let other = Self.other
        try write(#"{"at":"\#(millis("2026-11-21T08:00:00Z"))-0-\#(other)","key":"g","changes":[{"set":"name","value":"a"}]}"# + "\n"
                  + #"{"at":"\#(millis("2026-11-21T09:30:00Z"))-2-\#(other)","key":"g","changes":[{"set":"name","value":"b"}]}"# + "\n",
                  to: "devices/\(other)/changes/groups.jsonl")
        try write(#"{"at":"\#(millis("2026-11-21T07:00:00Z"))-0-\#(other)","key":"g","changes":[{"set":"note","value":"c"}]}"# + "\n",
                  to: "devices/\(other)/changes/groups.sync-conflict-20261121-093000-ABCDEFG.jsonl")
        try write(#"{"at":"\#(millis("2027-01-01T00:00:00Z"))-0-\#(other)","key":"g"}"# + "\n",
                  to: "devices/\(other)/changes/~syncthing~groups.jsonl.tmp")
        try write(#"{"format":"retime.device","version":1,"name":"laptop","seen":{"\#(this)":"\#(own - 7_200_000)-0-\#(this)"}}"#,
                  to: "devices/\(other)/device.json")
        // A change of ours made two hours before our newest, just after the
        // one it saw: it lags by that change's age (it has not our newest
        // either, but that one is only seconds old).
        try write(#"{"at":"\#(own - 7_200_000)-1-\#(this)","key":"notify","value":"off"}"# + "\n", to: "devices/\(this)/changes/config.jsonl")
        // A device known only by its history, which never recorded what it saw.
        try write(#"{"breaks":[],"endedAt":"2026-11-19T12:00:00Z","groupId":"0d67e89d-128a-4246-8aea-f325023e4f90","id":"aaaaaaaa-4aa9-4312-984e-1182de20b0c1","origin":"manual","outcome":"completed","plannedEnd":"2026-11-19T12:00:00Z","startedAt":"2026-11-19T11:00:00Z","strict":false,"tags":[]}"# + "\n",
                  to: "history/\(Self.third)/2026-11.jsonl")
        // A device whose device.json is damaged, and a conflict copy outside any device's folder.
        try write("{not json", to: "devices/\(Self.damaged)/device.json")
        try write("{}", to: "store/groups.sync-conflict-20261120-101010-XYZ.json")

        let status = try retime.run("sync", "status", "--json")
        #expect(status.status == 0, "\(status.err)")
        let json = status.json
        #expect((json["device"] as? [String: Any])?["id"] as? String == this && (json["device"] as? [String: Any])?["name"] as? String == "desk")
        let devices = Dictionary(uniqueKeysWithValues: ((json["devices"] as? [[String: Any]]) ?? []).map { ($0["id"] as? String ?? "", $0) })
        #expect(Set(devices.keys) == [this, other, Self.third, Self.damaged], "\(status.out)")
        #expect(devices[this]?["lastChangeAt"] as? String == ownText && devices[this]?["behindSeconds"] as? Int == 0, "\(status.out)")
        #expect(devices[other]?["name"] as? String == "laptop")
        #expect(devices[other]?["lastChangeAt"] as? String == "2026-11-21T09:30:00Z", "the newest line, not the temporary's: \(status.out)")
        let behind = devices[other]?["behindSeconds"] as? Int ?? -1
        #expect(behind >= 7_200 && behind < 7_200 + 600, "the age of its oldest change it has not seen: \(status.out)")
        #expect(devices[Self.third]?["lastChangeAt"] as? String == "2026-11-19T12:00:00Z", "\(status.out)")
        #expect(devices[Self.third]?["behindSeconds"] is NSNull && devices[Self.third]?["name"] is NSNull, "\(status.out)")
        #expect(json["conflicts"] as? [String] == ["devices/\(other)/changes/groups.sync-conflict-20261121-093000-ABCDEFG.jsonl",
                                                   "store/groups.sync-conflict-20261120-101010-XYZ.json"], "\(status.out)")
        #expect(json["unreadable"] as? [String] == ["devices/\(Self.damaged)/device.json"], "\(status.out)")

        // This device recorded what it has of the others, for them to work out its lag.
        let mine = try String(contentsOfFile: retime.file("devices/\(this)/device.json"), encoding: .utf8)
        let seen = (try JSONSerialization.jsonObject(with: Data(mine.utf8)) as? [String: Any])?["seen"] as? [String: String]
        #expect(seen?[other] == "\(millis("2026-11-21T09:30:00Z"))-2-\(other)" && seen?[Self.third] != nil, "\(mine)")
        #expect((try JSONSerialization.jsonObject(with: Data(mine.utf8)) as? [String: Any])?["name"] as? String == "desk", "the name kept")

        let text = try retime.run("sync", "status")
        #expect(text.status == 0)
        for expected in ["desk", "laptop", "2h 0m", "unknown", "Conflict copies", "store/groups.sync-conflict-20261120-101010-XYZ.json",
                         "could not read", "devices/\(Self.damaged)/device.json"] {
            #expect(text.out.contains(expected), "\(expected): \(text.out)")
        }

        let doctor = try retime.run("doctor")
        let line = doctor.findings.first { $0.contains("sync:") } ?? ""
        #expect(line.hasPrefix("warning") && line.contains("2 conflict copies") && line.contains("device.json"), "\(doctor.out)")
        // Under 80 columns, but for a path longer than a line, kept whole to be copied.
        let long = doctor.out.split(separator: "\n").filter { $0.count > 80 && $0.trimmingCharacters(in: .whitespaces).contains(" ") }
        #expect(long.isEmpty, "every line of doctor under 80 columns: \(long)")
    }

    @Test("sync status and doctor when all is well: one device, clear words; a device more than a day behind is a doctor warning")
    func allWell() throws {
        let alone = try retime.run("sync", "status")
        #expect(alone.status == 0 && alone.out.contains("No other device") && alone.out.contains("No conflict copies")
                && alone.out.contains("Every data file could be read"), "\(alone.out)")
        #expect(try retime.run("doctor").out.contains("ok  sync:"))

        #expect(try retime.run("group", "create", "work").status == 0)
        #expect(try retime.run("track", "work", "--from", "2026-11-20T10:00:00Z", "--to", "2026-11-20T11:00:00Z").status == 0)
        let this = try thisDevice()
        try write(#"{"format":"retime.device","version":1,"name":"old laptop","seen":{"\#(this)":"\#(millis("2026-11-18T11:00:00Z"))-0-\#(this)"}}"#,
                  to: "devices/\(Self.other)/device.json")
        // It has not seen our change made just after, long ago.
        try write(#"{"at":"\#(millis("2026-11-18T11:00:00Z"))-1-\#(this)","key":"notify","value":"off"}"# + "\n",
                  to: "devices/\(this)/changes/config.jsonl")
        let doctor = try retime.run("doctor")
        let line = doctor.findings.first { $0.contains("sync:") } ?? ""
        #expect(line.hasPrefix("warning") && line.contains("more than a day behind: old laptop"), "\(doctor.out)")
    }

    @Test("history: a conflict copy of a segment or of amendments.jsonl is merged; sync tools' temporary and partial files are never read")
    func historyConflictCopies() throws {
        #expect(try retime.run("group", "create", "work").status == 0)
        #expect(try retime.run("track", "work", "--from", "2026-11-20T10:00:00Z", "--to", "2026-11-20T11:00:00Z").status == 0)
        #expect(try retime.run("track", "work", "--from", "2026-11-20T12:00:00Z", "--to", "2026-11-20T13:00:00Z").status == 0)
        let this = try thisDevice()
        let folder = "history/\(this)/"
        // A deletion (of the 12:00 session) that reached this machine only as a conflict copy of the amendments.
        #expect(try retime.run("delete", "@1").status == 0)
        try FileManager.default.moveItem(atPath: retime.file(folder + "amendments.jsonl"),
                                         toPath: retime.file(folder + "amendments.sync-conflict-20261120-160000-ABCDEFG.jsonl"))
        let segment = try String(contentsOfFile: retime.file(folder + "2026-11.jsonl"), encoding: .utf8)
        let line = try #require(segment.split(separator: "\n").first.map(String.init))
        func session(_ id: String, hour: Int) -> String {
            line.replacingOccurrences(of: #""id":"[^"]*""#, with: #""id":"\#(id)""#, options: .regularExpression)
                .replacingOccurrences(of: "T10:00:00Z", with: "T\(hour):00:00Z").replacingOccurrences(of: "T11:00:00Z", with: "T\(hour):30:00Z") + "\n"
        }
        // Syncthing kept both versions of the month: the copy holds a session the original lacks.
        try write(segment + session("cccccccc-0000-4000-8000-00000000000c", hour: 15),
                  to: folder + "2026-11.sync-conflict-20261120-150000-ABCDEFG.jsonl")
        // Files a sync tool is still writing: each holds a session that must not appear.
        for (index, name) in [".syncthing.2026-11.jsonl.tmp", "~syncthing~2026-11.jsonl.tmp", "2026-11.jsonl.part",
                              ".~lock2026-11.jsonl#", ".2026-11.jsonl.Xy12Ab"].enumerated() {
            try write(session("dddddddd-0000-4000-8000-00000000000\(index)", hour: 17), to: folder + name)
        }

        let log = try retime.run("log", "--since", "2026-11-19", "--until", "2026-11-22", "--json")
        #expect(log.status == 0, "\(log.err)")
        let ids = ((log.json["sessions"] as? [[String: Any]]) ?? []).compactMap { $0["id"] as? String }
        #expect(ids.contains("cccccccc-0000-4000-8000-00000000000c"), "the conflict copy's session: \(log.out)")
        #expect(!ids.contains { $0.hasPrefix("dddddddd") }, "no temporary's session: \(log.out)")
        #expect(ids.count == 2, "the deleted session stays deleted, each id once: \(ids)")
        #expect(!log.err.contains("malformed"), "an amendments copy is not read as a segment: \(log.err)")
        let limited = try retime.run("log", "--limit", "5", "--json")
        #expect(((limited.json["sessions"] as? [[String: Any]]) ?? []).count == 2, "\(limited.out)")
    }
}
