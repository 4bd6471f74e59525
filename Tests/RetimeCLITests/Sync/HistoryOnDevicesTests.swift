import Domain
import Foundation
import Testing

/// History amended on two devices whose folders are merged as a sync tool
/// merges them (issue 31; docs/history.md, "Several devices"): amendments
/// merge per field and are ordered by the hybrid clock. Times are ISO-8601
/// instants, so nothing depends on the hour or the zone the tests run in.
@Suite("history amended on two devices")
struct HistoryOnDevicesTests {
    static func ago(_ hours: Double) -> String { HistoryAmendmentEndToEndTests.ago(hours) }

    func sessions(_ retime: RetimeProcess) throws -> [[String: Any]] { try retime.loggedSessions() }

    @Test("two devices editing one session: the edit made last wins, whichever folder was copied first")
    func twoDevices() throws {
        let laptop = RetimeProcess(), desktop = RetimeProcess()
        for device in [laptop, desktop] { #expect(try device.run("group", "create", "work").status == 0) }
        #expect(try laptop.run("track", "work", "--from", Self.ago(4), "--to", Self.ago(3), "--note", "original").status == 0)
        let laptopFolder = try #require(try FileManager.default.contentsOfDirectory(atPath: laptop.file("history")).first)
        // The desktop gets the laptop's history (a sync engine copying folders).
        try FileManager.default.copyItem(atPath: laptop.file("history/\(laptopFolder)"), toPath: desktop.file("history/\(laptopFolder)"))
        #expect(try sessions(desktop).count == 1)

        #expect(try laptop.run("edit", "@1", "--note", "first edit, on the laptop").status == 0)
        // The next edit is made later on the wall clock: its process starts after this one ended.
        #expect(try desktop.run("edit", "@1", "--note", "second edit, on the desktop").status == 0)
        let desktopFolder = try #require(try FileManager.default.contentsOfDirectory(atPath: desktop.file("history")).first { $0 != laptopFolder })

        // Each copies the other's folder: both read the later edit.
        try FileManager.default.removeItem(atPath: desktop.file("history/\(laptopFolder)"))
        try FileManager.default.copyItem(atPath: laptop.file("history/\(laptopFolder)"), toPath: desktop.file("history/\(laptopFolder)"))
        try FileManager.default.copyItem(atPath: desktop.file("history/\(desktopFolder)"), toPath: laptop.file("history/\(desktopFolder)"))
        for device in [laptop, desktop] {
            let log = try sessions(device)
            #expect(log.count == 1 && log.first?["note"] as? String == "second edit, on the desktop", "\(log)")
        }
        // A deletion on the laptop, made after both, wins on both once copied.
        #expect(try laptop.run("delete", "@1").status == 0)
        try FileManager.default.removeItem(atPath: desktop.file("history/\(laptopFolder)"))
        try FileManager.default.copyItem(atPath: laptop.file("history/\(laptopFolder)"), toPath: desktop.file("history/\(laptopFolder)"))
        #expect(try sessions(desktop).isEmpty && sessions(laptop).isEmpty)
    }

    @Test("a --tag on one device and a concurrent --note on another both hold once the folders are merged, in either order (issue 31)")
    func concurrentFieldEdits() throws {
        let laptop = RetimeProcess(), desktop = RetimeProcess()
        for device in [laptop, desktop] { #expect(try device.run("group", "create", "work").status == 0) }
        #expect(try laptop.run("track", "work", "--from", Self.ago(4), "--to", Self.ago(3), "--tag", "deep", "--note", "original").status == 0)
        let laptopFolder = try #require(try FileManager.default.contentsOfDirectory(atPath: laptop.file("history")).first)
        try FileManager.default.copyItem(atPath: laptop.file("history/\(laptopFolder)"), toPath: desktop.file("history/\(laptopFolder)"))
        let id = try #require(try sessions(desktop).first?["id"] as? String)

        // Neither has seen the other's edit.
        #expect(try laptop.run("edit", id, "--tag", "x", "--untag", "deep").status == 0)
        #expect(try desktop.run("edit", id, "--note", "y").status == 0)
        let desktopFolder = try #require(try FileManager.default.contentsOfDirectory(atPath: desktop.file("history")).first { $0 != laptopFolder })
        // Laptop's folder to the desktop, the desktop's to the laptop.
        try FileManager.default.removeItem(atPath: desktop.file("history/\(laptopFolder)"))
        try FileManager.default.copyItem(atPath: laptop.file("history/\(laptopFolder)"), toPath: desktop.file("history/\(laptopFolder)"))
        try FileManager.default.copyItem(atPath: desktop.file("history/\(desktopFolder)"), toPath: laptop.file("history/\(desktopFolder)"))
        for device in [laptop, desktop] {
            let log = try sessions(device)
            #expect(log.count == 1, "\(log)")
            #expect(log.first?["tags"] as? [String] == ["x"], "\(log)")
            #expect(log.first?["note"] as? String == "y", "\(log)")
        }
        let lines = try String(contentsOfFile: laptop.file("history/\(laptopFolder)/amendments.jsonl"), encoding: .utf8)
        #expect(lines.contains(#""changed":[]"#) && lines.contains(#""tagsAdded":["x"]"#) && lines.contains(#""tagsRemoved":["deep"]"#), "\(lines)")
    }

    @Test("a device whose clock runs an hour fast does not win an edit made later elsewhere, after its own was seen (issue 31)")
    func fastClockDoesNotWin() throws {
        guard AuthEndToEndTests.hasFaketime else { return }
        let laptop = RetimeProcess()
        var fast = RetimeProcess()
        fast.launcher = ["/usr/bin/faketime", "-f", "+1h"]
        for device in [laptop, fast] { #expect(try device.run("group", "create", "work").status == 0) }
        #expect(try laptop.run("track", "work", "--from", Self.ago(4), "--to", Self.ago(3), "--note", "original").status == 0)
        let laptopFolder = try #require(try FileManager.default.contentsOfDirectory(atPath: laptop.file("history")).first)
        try FileManager.default.copyItem(atPath: laptop.file("history/\(laptopFolder)"), toPath: fast.file("history/\(laptopFolder)"))
        #expect(try fast.run("edit", "@1", "--note", "made on the fast clock").status == 0)
        let fastFolder = try #require(try FileManager.default.contentsOfDirectory(atPath: fast.file("history")).first { $0 != laptopFolder })
        try FileManager.default.copyItem(atPath: fast.file("history/\(fastFolder)"), toPath: laptop.file("history/\(fastFolder)"))
        #expect(try sessions(laptop).first?["note"] as? String == "made on the fast clock")
        // The laptop, an hour behind by the wall clock, edits after it has seen that edit: its edit holds.
        #expect(try laptop.run("edit", "@1", "--note", "later, on the laptop").status == 0)
        try FileManager.default.removeItem(atPath: fast.file("history/\(laptopFolder)"))
        try FileManager.default.copyItem(atPath: laptop.file("history/\(laptopFolder)"), toPath: fast.file("history/\(laptopFolder)"))
        for device in [laptop, fast] { #expect(try sessions(device).first?["note"] as? String == "later, on the laptop") }
    }
}
