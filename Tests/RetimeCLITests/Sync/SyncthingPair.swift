#if canImport(Glibc)
import Glibc
#endif
import Foundation
import Testing

/// Two real Syncthing instances on 127.0.0.1 sharing one folder both ways
/// (send-receive, file watcher on with a 1 s delay, a 5 s rescan), each
/// folder being one device's retime data directory. Readiness and "in
/// sync" are asked of Syncthing's REST API, never slept for.
///
/// Use `SyncthingPair.run { pair in ... }`: it stops both processes and
/// removes every file it made whatever the body does, and the processes
/// also end if the test process dies (see `SyncthingInstance.start`).
final class SyncthingPair: @unchecked Sendable {
    /// How long Syncthing itself may take (start, connect, settle): generous,
    /// for a two-core machine running a parallel test suite beside it.
    /// Polled, so a healthy run takes a second or two.
    static let patience: TimeInterval = 60
    static let folderID = "retime-data"

    let root: String
    let a: SyncthingInstance
    let b: SyncthingInstance
    /// The shared folder's two copies: device A's and device B's data directory.
    let folderA: String
    let folderB: String
    private var lastEventID: [ObjectIdentifier: Int] = [:]

    /// Runs `body` with a started, connected pair; always stops it and
    /// removes its files after.
    static func run<T>(_ body: (SyncthingPair) throws -> T) throws -> T {
        let pair = try SyncthingPair()
        defer { pair.tearDown() }
        try pair.start()
        return try body(pair)
    }

    private init() throws {
        root = FileManager.default.temporaryDirectory.appendingPathComponent("retime-syncthing-\(UUID().uuidString)").path
        folderA = root + "/a/data"
        folderB = root + "/b/data"
        for folder in [folderA, folderB] {
            try FileManager.default.createDirectory(atPath: folder + "/.stfolder", withIntermediateDirectories: true,
                                                    attributes: [.posixPermissions: 0o700])
            try Self.ignores.write(toFile: folder + "/.stignore", atomically: true, encoding: .utf8)
        }
        do {
            a = try SyncthingInstance(name: "a", home: root + "/a/syncthing")
            b = try SyncthingInstance(name: "b", home: root + "/b/syncthing")
        } catch {
            try? FileManager.default.removeItem(atPath: root)
            throw error
        }
    }

    /// What Syncthing keeps to each device: today's `DATA_DIR/device-id`
    /// (and its temporaries, and what the identity's move to
    /// `$XDG_STATE_HOME` renames it to), which would give both devices one
    /// id. Once no data folder holds a `device-id` these match nothing.
    static let ignores = "/device-id\n/device-id.*\n/devices/*/snapshots\n"

    /// Configures both and waits until each is connected to the other with
    /// the folder idle. A port taken meanwhile by another process (the GUI's
    /// ends Syncthing, the sync protocol's leaves it unreachable) gets
    /// another try on fresh ports.
    private func start() throws {
        var attempt = 0
        while true {
            attempt += 1
            do {
                try configureBoth()
                try a.launch(leftovers: root + "/a")
                try b.launch(leftovers: root + "/b")
                try a.waitUntilAnswering(within: Self.patience)
                try b.waitUntilAnswering(within: Self.patience)
                try waitUntil("both connected, the folder idle") {
                    try connected(a, to: b) && connected(b, to: a) && folderState(a) == "idle" && folderState(b) == "idle"
                }
                return
            } catch {
                a.stop()
                b.stop()
                if attempt == 3 { throw error }
            }
        }
    }

    private func configureBoth() throws {
        let folder = SharedFolder(id: Self.folderID, paths: [ObjectIdentifier(a): folderA, ObjectIdentifier(b): folderB])
        try a.pickPorts()
        try b.pickPorts()
        // One side dials, the other listens: two devices that dial each
        // other at once may each drop the other's connection as a
        // duplicate, and stay apart for a backoff of about 20 s.
        try a.configure(peers: [b], folders: [folder], dials: true)
        try b.configure(peers: [a], folders: [folder], dials: false)
    }

    /// Stops both processes and removes everything under `root`.
    func tearDown() {
        a.stop()
        b.stop()
        try? FileManager.default.removeItem(atPath: root)
    }

    // MARK: - What Syncthing says

    func connected(_ instance: SyncthingInstance, to peer: SyncthingInstance) throws -> Bool {
        let document = try instance.api.json("/rest/system/connections") as? [String: Any]
        let connection = (document?["connections"] as? [String: Any])?[peer.deviceID] as? [String: Any]
        return connection?["connected"] as? Bool == true
    }

    /// The folder's state on `instance`: `idle`, `scanning`, `syncing`, ...
    func folderState(_ instance: SyncthingInstance) throws -> String? {
        try folderStatus(instance)["state"] as? String
    }

    func folderStatus(_ instance: SyncthingInstance) throws -> [String: Any] {
        try instance.api.json("/rest/db/status?folder=\(Self.folderID)") as? [String: Any] ?? [:]
    }

    /// How complete `peer`'s copy is, as `instance` knows it (100: it has
    /// everything `instance` has announced).
    func completion(of peer: SyncthingInstance, on instance: SyncthingInstance) throws -> (percent: Double, needItems: Int) {
        let document = try instance.api.json("/rest/db/completion?folder=\(Self.folderID)&device=\(peer.deviceID)") as? [String: Any] ?? [:]
        return ((document["completion"] as? NSNumber)?.doubleValue ?? 0, (document["needItems"] as? NSNumber)?.intValue ?? -1)
    }

    /// Asks `instance` to scan the folder now (the REST call returns when
    /// the scan is done): what a test uses to say "the files are written,
    /// announce them", instead of waiting for the watcher.
    func scan(_ instance: SyncthingInstance) throws {
        let (status, body) = try instance.api.post("/rest/db/scan?folder=\(Self.folderID)")
        guard status == 200 else {
            throw LoopbackHTTP.Failure(description: "scan on \(instance.name): HTTP \(status) \(String(decoding: body, as: UTF8.self))")
        }
    }

    /// Waits up to `seconds` for the next events on `instance` (a long-poll
    /// of `/rest/events`): the pause between two looks at a condition,
    /// which ends early when Syncthing does anything.
    func awaitEvents(on instance: SyncthingInstance, seconds: Int = 1) {
        let key = ObjectIdentifier(instance)
        var api = instance.api
        api.timeout = TimeInterval(seconds + 10)
        let since = lastEventID[key] ?? 0
        guard let events = try? api.json("/rest/events?since=\(since)&timeout=\(seconds)") as? [[String: Any]] else {
            Thread.sleep(forTimeInterval: 0.1)
            return
        }
        if let last = events.compactMap({ ($0["id"] as? NSNumber)?.intValue }).max() { lastEventID[key] = last }
    }

    /// Polls `condition` until it holds, pausing on Syncthing's events;
    /// fails after `patience` with what each side's Syncthing said.
    func waitUntil(_ what: String, within seconds: TimeInterval = SyncthingPair.patience, _ condition: () throws -> Bool) throws {
        let deadline = Date().addingTimeInterval(seconds)
        var lastError: (any Error)?
        while Date() < deadline {
            do {
                if try condition() { return }
                lastError = nil
            } catch {
                lastError = error
            }
            for instance in [a, b] where !instance.isRunning {
                throw LoopbackHTTP.Failure(description: "syncthing \(instance.name) exited while waiting for \(what)\n\(instance.logTail())")
            }
            awaitEvents(on: a, seconds: 1)
        }
        if try condition() { return }
        throw LoopbackHTTP.Failure(description: "not within \(Int(seconds)) s: \(what)"
                                   + (lastError.map { " (last error: \($0))" } ?? "") + "\n" + a.logTail() + "\n" + b.logTail())
    }

    /// Waits until both copies of the folder hold the same files with the
    /// same bytes and Syncthing on each side is idle with nothing left to
    /// pull or to send. Both sides are told to scan first, so what was
    /// just written counts without waiting for the watcher.
    func waitUntilInSync(within seconds: TimeInterval = SyncthingPair.patience) throws {
        try waitUntil("both copies of the folder in sync", within: seconds) {
            try scan(a)
            try scan(b)
            for (instance, peer) in [(a, b), (b, a)] {
                let status = try folderStatus(instance)
                guard status["state"] as? String == "idle", (status["needTotalItems"] as? NSNumber)?.intValue == 0 else { return false }
                let peerCompletion = try completion(of: peer, on: instance)
                guard peerCompletion.percent == 100, peerCompletion.needItems == 0 else { return false }
            }
            return FolderSnapshot(folderA) == FolderSnapshot(folderB)
        }
    }

    /// Cuts the connection (each side pauses the other), so both can write
    /// as if offline; `resume()` joins them again.
    func pause() throws {
        for (instance, peer) in [(a, b), (b, a)] {
            _ = try instance.api.post("/rest/system/pause?device=\(peer.deviceID)")
        }
        try waitUntil("the devices apart") { try !connected(a, to: b) && !connected(b, to: a) }
    }

    /// Joins the two again after `pause()`. Syncthing dials a resumed device
    /// at once, but a dial can still be lost (CI once saw a pair stay apart
    /// for 60 s with a 1 s reconnection interval): a pair not joined within
    /// `joinWithin` is paused and resumed again, a fresh dial, up to
    /// `patience` in all.
    func resume() throws {
        let attempts = Int(Self.patience / Self.joinWithin)
        for attempt in 1...attempts {
            for (instance, peer) in [(a, b), (b, a)] {
                _ = try instance.api.post("/rest/system/resume?device=\(peer.deviceID)")
            }
            do {
                try waitUntil("the devices connected again (try \(attempt) of \(attempts))", within: Self.joinWithin) {
                    try connected(a, to: b) && connected(b, to: a)
                }
                return
            } catch where attempt < attempts && a.isRunning && b.isRunning {
                print("Syncthing: the pair not joined \(Int(Self.joinWithin)) s after a resume; paused and resumed again")
                try pause()
            }
        }
    }

    /// How long one resume may take to join the pair before it is tried again.
    static let joinWithin: TimeInterval = 15

    /// Files that Syncthing made of a concurrent change, in either copy.
    func conflictCopies() -> [String] {
        [folderA, folderB].flatMap { folder in
            FolderSnapshot(folder).files.keys.filter { $0.contains(".sync-conflict-") }.map { folder + "/" + $0 }
        }.sorted()
    }
}

/// A folder's regular files and their bytes, by relative path, but for
/// Syncthing's own (`.stfolder`, `.stignore`, its temporaries) and the
/// files it is told to ignore: what two copies in sync hold alike.
struct FolderSnapshot: Equatable {
    var files: [String: Data] = [:]

    init(_ folder: String) {
        guard let walker = FileManager.default.enumerator(atPath: folder) else { return }
        while let relative = walker.nextObject() as? String {
            let name = (relative as NSString).lastPathComponent
            if relative == ".stfolder" || relative.hasPrefix(".stfolder/") || relative == ".stignore" { continue }
            if name.hasPrefix(".syncthing.") || name.hasPrefix("~syncthing~") { continue }
            if relative == "device-id" || relative.hasPrefix("device-id.") { continue }
            // A device's snapshots of merged suites are its own cache,
            // written by its reads and never synced (docs/storage.md).
            if relative.hasPrefix("devices/"), relative.split(separator: "/").dropFirst(2).first == "snapshots" { continue }
            var info = stat()
            guard lstat(folder + "/" + relative, &info) == 0, info.st_mode & S_IFMT == S_IFREG else { continue }
            files[relative] = FileManager.default.contents(atPath: folder + "/" + relative) ?? Data()
        }
    }
}
