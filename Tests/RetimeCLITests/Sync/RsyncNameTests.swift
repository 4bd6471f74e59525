import Domain
import Foundation
import Testing

/// One group or schedule name made on two devices before they saw each
/// other (issue 31): one record, not two groups that `start work` would
/// pick between. A group's and a schedule's id is named after its name.
@Suite("one name made on two devices, copied both ways by rsync", .enabled(if: RsyncPair.available, "needs rsync"))
struct RsyncNameTests {
    @Test("`work` made on A and `Work` on B while apart are one group with both devices' targets; one `mornings` schedule, the later one's times")
    func oneNameIsOneRecord() throws {
        for aFirst in [true, false] {
            try RsyncPair.run { pair in
                let a = try SharedFolderDevice(name: "a", dataDirectory: pair.folderA)
                let b = try SharedFolderDevice(name: "b", dataDirectory: pair.folderB)
                try a.must("group", "create", "work", "--block", "slack.com")
                try a.must("schedule", "add", "mornings", "--group", "work", "--from", "09:00", "--to", "12:00")
                try b.must("group", "create", "Work", "--block", "news.example")
                try b.must("schedule", "add", "Mornings", "--group", "Work", "--from", "09:00", "--to", "11:00")
                if aFirst {
                    try pair.copy(from: a, to: b)
                    try pair.copy(from: b, to: a)
                } else {
                    try pair.copy(from: b, to: a)
                    try pair.copy(from: a, to: b)
                }
                for device in [a, b] {
                    #expect(try device.groupNames() == ["Work"], "\(device.name): the name made last")
                    let group = try device.must("group", "show", "work", "--json").json["group"] as? [String: Any]
                    #expect(group?["targets"] as? [String] == ["slack.com", "news.example"], "\(device.name): \(String(describing: group))")
                    let schedules = try device.must("schedule", "list", "--json").json["schedules"] as? [[String: Any]] ?? []
                    #expect(schedules.count == 1 && schedules.first?["to"] as? String == "11:00:00" && schedules.first?["group"] as? String == "Work",
                            "\(device.name): \(schedules)")
                    #expect(try Self.namesCheck(device)?["status"] as? String == "ok")
                }
            }
        }
    }

    @Test("a name made again after a rename on A, and made on B before B saw A: two groups hold it; doctor says so, every device finds the same one")
    func aNameHeldTwiceIsReported() throws {
        try RsyncPair.run { pair in
            let a = try SharedFolderDevice(name: "a", dataDirectory: pair.folderA)
            let b = try SharedFolderDevice(name: "b", dataDirectory: pair.folderB)
            try a.must("group", "create", "work", "--block", "a.example")
            try a.must("group", "rename", "work", "deep")
            try a.must("group", "create", "work", "--block", "again.example")
            try b.must("group", "create", "work", "--block", "b.example")
            try pair.copy(from: a, to: b)
            try pair.copy(from: b, to: a)
            var found: [String] = []
            for device in [a, b] {
                #expect(try device.groupNames() == ["work", "work"], "\(device.name)")
                let check = try Self.namesCheck(device)
                #expect(check?["status"] as? String == "warning" && (check?["detail"] as? String)?.contains("two groups are named 'work'") == true,
                        "\(device.name): \(String(describing: check))")
                let group = try device.must("group", "show", "work", "--json").json["group"] as? [String: Any]
                found.append(group?["id"] as? String ?? "")
                // No target is lost: each is in one of the two.
                let shown = try device.must("group", "list", "--json").json["groups"] as? [[String: Any]] ?? []
                let targets = Set(shown.flatMap { $0["targets"] as? [String] ?? [] })
                #expect(targets == ["a.example", "again.example", "b.example"], "\(device.name): \(shown)")
            }
            #expect(found[0] == found[1] && !found[0].isEmpty, "both devices find the same group")
            // The way out the warning names.
            try a.must("group", "rename", "work", "other")
            #expect(try Self.namesCheck(a)?["status"] as? String == "ok")
        }
    }

    static func namesCheck(_ device: SharedFolderDevice) throws -> [String: Any]? {
        (try device.run("doctor", "--json").json["checks"] as? [[String: Any]])?.first { $0["name"] as? String == "names" }
    }
}
