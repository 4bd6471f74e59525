import Domain
import Foundation
import Testing

/// One group or schedule name made on two devices before they saw each
/// other (issue 31): two records, each device having edited only its own,
/// so neither device could weaken the other's (a strict session's group
/// least of all). Every device and every command finds the same one, and
/// `doctor` says how to part them (docs/storage.md, "One name made on two
/// devices").
@Suite("one name made on two devices, copied both ways by rsync", .enabled(if: RsyncPair.available, "needs rsync"))
struct RsyncNameTests {
    @Test("`work` made on A and `Work` on B while apart: both kept whole, the same one found everywhere, doctor warns; a rename parts them")
    func oneNameTwoRecords() throws {
        try RsyncPair.run { pair in
            let a = try SharedFolderDevice(name: "a", dataDirectory: pair.folderA)
            let b = try SharedFolderDevice(name: "b", dataDirectory: pair.folderB)
            try a.must("group", "create", "work", "--block", "slack.com")
            try a.must("schedule", "add", "mornings", "--group", "work", "--from", "09:00", "--to", "12:00")
            try b.must("group", "create", "Work", "--block", "news.example")
            try b.must("schedule", "add", "Mornings", "--group", "Work", "--from", "09:00", "--to", "11:00")
            try pair.copy(from: a, to: b)
            try pair.copy(from: b, to: a)
            var found: [String] = [], listed: [[String]] = []
            for device in [a, b] {
                let groups = try device.must("group", "list", "--json").json["groups"] as? [[String: Any]] ?? []
                #expect(Set(groups.flatMap { $0["targets"] as? [String] ?? [] }) == ["slack.com", "news.example"], "\(device.name): \(groups)")
                listed.append(groups.compactMap { $0["id"] as? String })
                found.append((try device.must("group", "show", "WORK", "--json").json["group"] as? [String: Any])?["id"] as? String ?? "")
                #expect(try device.scheduleNames().count == 2)
                let check = try Self.namesCheck(device)
                #expect(check?["status"] as? String == "warning", "\(device.name): \(String(describing: check))")
                #expect((check?["detail"] as? String)?.contains("2 groups are named") == true && (check?["detail"] as? String)?.contains("2 schedules") == true)
            }
            #expect(found[0] == found[1] && found[0] == listed[0].first && listed[0] == listed[1], "the same one, first, on both devices")
            try a.must("group", "rename", "work", "other")
            try a.must("schedule", "remove", "mornings")
            try pair.copy(from: a, to: b)
            for device in [a, b] { #expect(try Self.namesCheck(device)?["status"] as? String == "ok", "\(device.name)") }
        }
    }

    @Test("a strict session's group on A keeps every target, its name and its life when B, apart, makes the same name, then unblocks and deletes it")
    func aStrictGroupIsNotWeakenedFromAfar() throws {
        try RsyncPair.run { pair in
            let a = try SharedFolderDevice(name: "a", dataDirectory: pair.folderA)
            let b = try SharedFolderDevice(name: "b", dataDirectory: pair.folderB)
            for device in [a, b] { try device.must("config", "set", "shield", "none") }
            try a.must("group", "create", "work", "--block", "a.example", "--block", "c.example")
            try a.must("start", "work", "--for", "20m", "--strict")
            try b.must("group", "create", "work", "--block", "a.example")
            try b.must("group", "unblock", "work", "a.example")
            try b.must("group", "delete", "work")
            try pair.copy(from: b, to: a)
            try pair.copy(from: a, to: b)
            for device in [a, b] {
                let group = try device.must("group", "show", "work", "--json").json["group"] as? [String: Any]
                #expect(group?["targets"] as? [String] == ["a.example", "c.example"], "\(device.name): \(String(describing: group))")
                let status = try device.must("status", "--json").json
                #expect(status["active"] as? Bool == true && (status["session"] as? [String: Any])?["group"] as? String == "work", "\(status)")
            }
        }
    }

    @Test("a schedule added on A to a group B deleted meanwhile: doctor says so on both devices, quoting the way out, which works")
    func aScheduleWhoseGroupWentIsReported() throws {
        try RsyncPair.run { pair in
            let a = try SharedFolderDevice(name: "a", dataDirectory: pair.folderA)
            let b = try SharedFolderDevice(name: "b", dataDirectory: pair.folderB)
            try a.must("group", "create", "work")
            try pair.copy(from: a, to: b)
            try a.must("schedule", "add", "early mornings", "--group", "work", "--from", "09:00", "--to", "12:00")
            try b.must("group", "delete", "work")
            try pair.copy(from: a, to: b)
            try pair.copy(from: b, to: a)
            for device in [a, b] {
                let check = try Self.check("schedules", device)
                #expect(check?["status"] as? String == "warning" && (check?["detail"] as? String)?.contains("'retime schedule remove \"early mornings\"'") == true,
                        "\(device.name): \(String(describing: check))")
            }
            try a.must("schedule", "remove", "early mornings")
            #expect(try Self.check("schedules", a)?["status"] as? String == "ok")
        }
    }

    static func namesCheck(_ device: SharedFolderDevice) throws -> [String: Any]? {
        try check("names", device)
    }

    static func check(_ name: String, _ device: SharedFolderDevice) throws -> [String: Any]? {
        (try device.run("doctor", "--json").json["checks"] as? [[String: Any]])?.first { $0["name"] as? String == name }
    }
}
