import Domain
import Foundation
import Testing

/// One of a person's machines in a shared-data-folder test: the real
/// `retime` binary on a data directory that a sync tool (Syncthing, rsync)
/// shares with the other devices, with a home of its own, so a state
/// directory of its own, so an identity of its own.
///
/// The id is written before the first command, in both places retime has
/// kept it: `$XDG_STATE_HOME/retime/device-id` (issue 31's layout) and the
/// older `DATA_DIR/device-id`, which the sync tools in these tests are told
/// to leave to each device (`SyncthingPair.ignores`, `RsyncMesh`).
struct SharedFolderDevice: Sendable {
    let name: String
    /// retime's device id on this machine (a lowercase UUID): the folder
    /// under `history/` (and `devices/`) that only this device writes.
    let id: String
    var retime: RetimeProcess

    var dataDirectory: String { retime.dataDirectory }
    var stateHome: String { dataDirectory + "-home/.local/state" }

    init(name: String, dataDirectory: String, id: String = UUID().uuidString.lowercased()) throws {
        self.name = name
        self.id = id
        retime = RetimeProcess(dataDirectory: dataDirectory)
        retime.environment["XDG_STATE_HOME"] = dataDirectory + "-home/.local/state"
        retime.environment["TZ"] = "UTC"
        try Self.writeIdentity(id, to: stateHome + "/retime/device-id")
        try Self.writeIdentity(id, to: dataDirectory + "/device-id")
    }

    private static func writeIdentity(_ id: String, to path: String) throws {
        let folder = (path as NSString).deletingLastPathComponent
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        guard FileManager.default.createFile(atPath: path, contents: Data((id + "\n").utf8), attributes: [.posixPermissions: 0o600]) else {
            throw LoopbackHTTP.Failure(description: "cannot write \(path)")
        }
    }

    @discardableResult
    func run(_ arguments: String...) throws -> RetimeProcess.Outcome {
        try retime.run(arguments)
    }

    /// Runs a command that must succeed, and returns what it printed.
    @discardableResult
    func must(_ arguments: String...) throws -> RetimeProcess.Outcome {
        let outcome = try retime.run(arguments)
        guard outcome.status == 0 else {
            throw LoopbackHTTP.Failure(description: "\(name): retime \(arguments.joined(separator: " ")) exited \(outcome.status): \(outcome.err)")
        }
        return outcome
    }

    /// A fixed day, so that no test depends on the hour: every session
    /// falls in one month's history segment.
    static let day = Timestamp.parse("2026-01-15T08:00:00Z")!

    /// The `slot`th session of that day: 2 minutes every 3, none overlapping.
    static func slot(_ slot: Int) -> (from: Date, to: Date) {
        let from = day.addingTimeInterval(TimeInterval(slot * 180))
        return (from, from.addingTimeInterval(120))
    }

    /// Records an ended session of `group` on this device (`retime track`),
    /// with `note` to find it by on every device.
    func track(_ group: String, from: Date, to: Date, note: String) throws {
        try must("track", group, "--from", Timestamp.format(from, fractionDigits: 0), "--to", Timestamp.format(to, fractionDigits: 0), "--note", note)
    }

    /// Every ended session this device's `retime log --json` lists.
    func loggedSessions() throws -> [[String: Any]] {
        let outcome = try must("log", "--json")
        guard let sessions = outcome.json["sessions"] as? [[String: Any]] else {
            throw LoopbackHTTP.Failure(description: "\(name): log --json has no sessions: \(outcome.out)")
        }
        return sessions
    }

    /// The notes of the sessions `log --json` lists, each as often as listed.
    func loggedNotes() throws -> [String] {
        try loggedSessions().compactMap { $0["note"] as? String }
    }

    /// `retime status --json`: for the scenarios of sessions across devices.
    func status() throws -> [String: Any] {
        try must("status", "--json").json
    }

    /// The names `group list --json` lists (groups made on any device,
    /// once the per-device logs merge them).
    func groupNames() throws -> [String] {
        let document = try must("group", "list", "--json").json
        return (document["groups"] as? [[String: Any]] ?? []).compactMap { $0["name"] as? String }
    }

    /// The names `schedule list --json` lists.
    func scheduleNames() throws -> [String] {
        let document = try must("schedule", "list", "--json").json
        return (document["schedules"] as? [[String: Any]] ?? []).compactMap { $0["name"] as? String }
    }

    /// Starts this device's daemon (`retime daemon run`) and waits until
    /// `daemon status` says it runs; stop it with `stopDaemon`.
    func startDaemon(within seconds: TimeInterval = 15) throws -> RetimeProcess.Running {
        let daemon = try retime.start(["daemon", "run"])
        let up = try eventually(within: seconds) { try retime.run("daemon", "status").status == 0 || !daemon.process.isRunning }
        guard up, daemon.process.isRunning else {
            if daemon.process.isRunning { stopDaemon(daemon) }
            throw LoopbackHTTP.Failure(description: "\(name)'s daemon did not come up")
        }
        return daemon
    }

    func stopDaemon(_ daemon: RetimeProcess.Running) {
        kill(daemon.process.processIdentifier, SIGTERM)
        daemon.process.waitUntilExit()
    }

    /// Polls `condition` (a look at this device's state through retime)
    /// every 20 ms until it holds; returns how long that took, or nil if
    /// it did not within `seconds`.
    func timeUntil(within seconds: TimeInterval, _ condition: () throws -> Bool) throws -> TimeInterval? {
        let start = Date()
        return try eventually(within: seconds, condition) ? Date().timeIntervalSince(start) : nil
    }
}

/// Issue 31's edits made on two devices while apart, for any sync tool: a
/// rename of `focus` on A and a block of it on B, a group, a schedule and a
/// setting made on each.
enum EditsWhileApart {
    static func make(on a: SharedFolderDevice, and b: SharedFolderDevice) throws {
        try a.must("group", "rename", "focus", "deep")
        try a.must("group", "create", "a-only")
        try a.must("schedule", "add", "morning", "--group", "deep", "--from", "09:00", "--to", "10:00")
        try a.must("config", "set", "notify", "off")
        try b.must("group", "block", "focus", "slack.com")
        try b.must("group", "create", "b-only")
        try b.must("schedule", "add", "evening", "--group", "focus", "--from", "18:00", "--to", "19:00")
        try b.must("config", "set", "defaultGroup", "b-only")
    }

    /// Whether `device` shows every one of them: nothing lost, the block
    /// held under the rename.
    static func converged(_ device: SharedFolderDevice) throws -> Bool {
        guard try device.groupNames() == ["a-only", "b-only", "deep"], try device.scheduleNames() == ["evening", "morning"] else { return false }
        let deep = try device.must("group", "show", "deep", "--json").json["group"] as? [String: Any]
        let settings = try device.must("config", "list", "--json").out
        return (deep?["targets"] as? [String]) == ["slack.com"] && settings.contains("b-only") && settings.contains("off")
    }
}
