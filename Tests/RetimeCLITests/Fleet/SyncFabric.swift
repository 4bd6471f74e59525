import Foundation

/// What carries each device's files to the others in a simulated fleet: a
/// folder-sync tool whose every liberty the simulation chooses. It takes
/// copies ("versions") of a device's own files when told (`capture`), and
/// delivers them to another device when told (`deliver`): newest first as
/// Syncthing does, or an older one after a newer (rsync without
/// `--update`), the same one twice, half of one written in place, one as
/// a Syncthing conflict copy; deletions carried or not (rsync without
/// `--delete`); or nothing at all while a link is cut.
final class SyncFabric {
    /// One file of one device as it was when captured.
    struct Version {
        /// Relative to the data folder (`devices/<id>/changes/session.jsonl`).
        var path: String
        /// Nil: the file was gone (a deletion to carry).
        var bytes: Data?
        var owner: Int
        /// Captures are numbered in order: a higher one is newer.
        var serial: Int
        /// The true time of its owner's last command before the capture:
        /// how old the newest clock reading in it is at most.
        var writtenAt = Date.distantPast
    }

    /// The simulation's true time, and each device's last command's.
    var trueTime = Date.distantPast
    var lastCommand: [Date]
    /// Each device's last command that changed its slot's log (true time),
    /// when the simulation knows it: the newest clock reading that log can
    /// hold, where its last command's may be later (a `status` after the
    /// owner's clock moved writes no line, so says nothing of the move).
    var lastSlotWrite: [Date?]
    /// Per receiver and owner, the newest owner's command whose slot log it
    /// has (true time), and when it got it: what it knows of the owner's
    /// sessions, and what its estimate of the owner's clock rests on.
    private(set) var received: [[(writtenAt: Date, at: Date)?]]
    /// Per receiver and owner, when the owner's files first reached it.
    private(set) var firstReceived: [[Date?]]

    /// How one delivery writes what it carries.
    enum Delivery: String, CaseIterable {
        /// The newest version of a file waiting, written aside and renamed
        /// into place (Syncthing, rsync): the older ones waiting are dropped.
        case newest
        /// Any version waiting, older ones included, in place of what the
        /// receiver has (rsync run from a stale copy, without `--update`).
        case anyOrder
        /// The newest version, left waiting to be delivered again.
        case twice
        /// The first part of the newest version written in place, the
        /// whole left waiting (a copy still being written, seen by a reader).
        case halfWritten
        /// The newest version as a Syncthing conflict copy beside the file.
        case conflictCopy
    }

    let devices: [FleetDevice]
    /// Per receiver, the versions waiting for it.
    private(set) var pending: [[Version]]
    /// Per owner, what each of its files held when last captured.
    private var captured: [[String: Data?]]
    private var capturedStamps: [[String: [Int]]]
    /// Every version ever captured of each device's own files (for old
    /// copies that come back).
    private(set) var history: [Version] = []
    private var serial = 0
    /// Links cut (`pending` keeps filling; nothing is delivered), by
    /// (owner, receiver).
    var cut: Set<[Int]> = []
    /// Whether deletions reach the receivers (Syncthing) or not (rsync
    /// without `--delete`).
    var carriesDeletions = true

    init(devices: [FleetDevice]) {
        self.devices = devices
        pending = Array(repeating: [], count: devices.count)
        captured = Array(repeating: [:], count: devices.count)
        capturedStamps = Array(repeating: [:], count: devices.count)
        lastCommand = Array(repeating: .distantPast, count: devices.count)
        lastSlotWrite = Array(repeating: nil, count: devices.count)
        received = Array(repeating: Array(repeating: nil, count: devices.count), count: devices.count)
        firstReceived = received.map { $0.map { _ in nil } }
    }

    /// The files of `device`'s own that a sync tool carries and another
    /// device reads: its change logs, `device.json` and `passcode.json`,
    /// and its history (its machine's own files, logs and events, which a
    /// real sync tool carries too, no other device reads).
    static func ownFiles(of device: FleetDevice, at holder: FleetDevice? = nil) -> [String: Data] {
        var files: [String: Data] = [:]
        for path in ownPaths(of: device, at: holder) { files[path] = FileManager.default.contents(atPath: (holder ?? device).data + "/" + path) }
        return files
    }

    /// The paths (relative to the data folder) of those files in `holder`'s
    /// folder (`device`'s own by default): listed, not read.
    static func ownPaths(of device: FleetDevice, at holder: FleetDevice? = nil) -> [String] {
        let base = (holder ?? device).data
        var paths: [String] = []
        func regular(_ relative: String) -> Bool {
            var info = stat()
            return lstat(base + "/" + relative, &info) == 0 && info.st_mode & S_IFMT == S_IFREG
        }
        func carried(_ name: String) -> Bool {
            !name.hasPrefix(".") && !name.hasSuffix(".lock") && !name.contains(".tmp-") && !name.contains(".sync-conflict-")
        }
        for folder in ["devices/" + device.id + "/changes", "history/" + device.id] {
            for name in FleetEvidence.names(in: base + "/" + folder) where carried(name) {
                if regular(folder + "/" + name) { paths.append(folder + "/" + name) }
            }
        }
        for name in ["device.json", "passcode.json"] where regular("devices/" + device.id + "/" + name) {
            paths.append("devices/" + device.id + "/" + name)
        }
        return paths
    }

    /// Each own file of `device` with its size and times: what tells, without
    /// reading them, that none changed.
    static func ownStamps(of device: FleetDevice) -> [String: [Int]] {
        var stamps: [String: [Int]] = [:]
        for path in ownPaths(of: device) {
            var info = stat()
            guard lstat(device.data + "/" + path, &info) == 0 else { continue }
            stamps[path] = [Int(info.st_ino), Int(info.st_size), info.st_mtim.tv_sec, info.st_mtim.tv_nsec]
        }
        return stamps
    }

    /// Takes a copy of every file of `owner` that changed since the last
    /// capture (and notes the ones that went), for every other device.
    func capture(_ owner: Int) {
        // Only the files whose stamp moved since are read.
        let stamps = Self.ownStamps(of: devices[owner])
        var now: [String: Data] = [:]
        for (path, stamp) in stamps {
            if capturedStamps[owner][path] == stamp, case .some(let bytes?) = captured[owner][path] {
                now[path] = bytes
            } else {
                now[path] = FileManager.default.contents(atPath: devices[owner].data + "/" + path)
            }
        }
        capturedStamps[owner] = stamps
        var versions: [Version] = []
        for (path, bytes) in now where captured[owner][path] != .some(bytes) {
            serial += 1
            versions.append(Version(path: path, bytes: bytes, owner: owner, serial: serial, writtenAt: writtenAt(path, by: owner)))
            captured[owner][path] = .some(bytes)
        }
        for (path, bytes) in captured[owner] where bytes != nil && now[path] == nil {
            serial += 1
            versions.append(Version(path: path, bytes: nil, owner: owner, serial: serial, writtenAt: writtenAt(path, by: owner)))
            captured[owner][path] = .some(nil)
        }
        versions.sort { $0.path < $1.path }
        history += versions
        for receiver in devices.indices where receiver != owner { pending[receiver] += versions }
    }

    /// Whether anything waits for `receiver` over a link that is not cut.
    func hasPending(for receiver: Int) -> Bool {
        pending[receiver].contains { !cut.contains([$0.owner, receiver]) }
    }

    /// Delivers one file to `receiver` as `delivery` says, the file picked
    /// by `pick` among those waiting (an index into the list it is given).
    /// Returns what it wrote, or nil when nothing waits.
    @discardableResult
    func deliver(to receiver: Int, _ delivery: Delivery, pick: (Int) -> Int, cutAt: (Int) -> Int) throws -> String? {
        let waitingHere = pending[receiver].indices.filter { !cut.contains([pending[receiver][$0].owner, receiver]) }
        guard !waitingHere.isEmpty else { return nil }
        let paths = Array(Set(waitingHere.map { pending[receiver][$0].path })).sorted()
        let path = paths[pick(paths.count)]
        let waiting = waitingHere.filter { pending[receiver][$0].path == path }
        let newest = waiting.max { pending[receiver][$0].serial < pending[receiver][$1].serial }!
        let chosen = delivery == .anyOrder ? waiting[pick(waiting.count)] : newest
        let version = pending[receiver][chosen]
        let device = devices[receiver]
        let target = device.data + "/" + path
        switch delivery {
        case .newest, .anyOrder, .twice:
            try write(version, to: target, receiver: device)
            if delivery != .twice { pending[receiver].removeAll { $0.path == path && $0.serial <= version.serial } }
        case .halfWritten:
            guard let bytes = version.bytes, bytes.count > 1 else {
                try write(version, to: target, receiver: device)
                pending[receiver].removeAll { $0.path == path && $0.serial <= version.serial }
                return path
            }
            try FileManager.default.createDirectory(atPath: (target as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
            let part = bytes.prefix(1 + cutAt(bytes.count - 1))
            // In place, as a tool that writes where it will end up does.
            let fd = open(target, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
            guard fd >= 0 else { return nil }
            _ = part.withUnsafeBytes { Foundation.write(fd, $0.baseAddress, $0.count) }
            close(fd)
            device.arrivals.record(target, at: device.clock.now())
            // Its lines carry the owner's clock readings, if not all it knew.
            if firstReceived[receiver][version.owner] == nil { firstReceived[receiver][version.owner] = trueTime }
        case .conflictCopy:
            guard let bytes = version.bytes else { return nil }
            let name = (path as NSString).lastPathComponent
            let stem = (name as NSString).deletingPathExtension, ext = (name as NSString).pathExtension
            let copy = (target as NSString).deletingLastPathComponent + "/" + stem
                + ".sync-conflict-20261128-\(String(format: "%06d", version.serial % 1_000_000))-ABCDEFG." + ext
            try FileManager.default.createDirectory(atPath: (copy as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
            try bytes.write(to: URL(fileURLWithPath: copy))
            device.arrivals.record(copy, at: device.clock.now())
            // Merged as a record of its device: its sessions and its clock.
            noteReceived(version, by: receiver)
            pending[receiver].removeAll { $0.path == path && $0.serial <= version.serial }
            return copy
        }
        return path
    }

    /// Writes `version` at `target` as a sync tool does: aside, then
    /// renamed into place; a deletion removes it, if deletions are carried.
    private func write(_ version: Version, to target: String, receiver: FleetDevice) throws {
        guard let bytes = version.bytes else {
            if carriesDeletions { try? FileManager.default.removeItem(atPath: target) }
            return
        }
        let folder = (target as NSString).deletingLastPathComponent
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        // Something that is not a file where the file goes (a damage the
        // simulation made) is cleared first, as a sync tool would.
        var info = stat()
        if lstat(target, &info) == 0, info.st_mode & S_IFMT != S_IFREG { try? FileManager.default.removeItem(atPath: target) }
        let temp = folder + "/.syncthing." + (target as NSString).lastPathComponent + ".tmp"
        try bytes.write(to: URL(fileURLWithPath: temp))
        guard rename(temp, target) == 0 else { throw POSIXError(.EIO) }
        receiver.arrivals.record(target, at: receiver.clock.now())
        noteReceived(version, by: receiver.index)
    }

    private func noteReceived(_ version: Version, by receiver: Int) {
        if firstReceived[receiver][version.owner] == nil { firstReceived[receiver][version.owner] = trueTime }
        // What a receiver knows of the owner's sessions and clock comes
        // with its slot's log.
        guard version.path.hasSuffix("/changes/session.jsonl") else { return }
        if received[receiver][version.owner].map({ version.writtenAt > $0.writtenAt }) ?? true {
            received[receiver][version.owner] = (version.writtenAt, trueTime)
        }
    }

    /// Delivers everything: every device's own files as they are now, in
    /// place of whatever another device holds of them (damage included),
    /// and every conflict copy to every device, over every link (cut ones
    /// too): the fabric settles, as a sync tool left alone does.
    func settle() throws {
        for owner in devices.indices { capture(owner) }
        var copies: [String: Data] = [:]
        for device in devices {
            for (path, bytes) in Self.conflictCopies(in: device) { copies[path] = bytes }
        }
        let everyone = devices.map { device in captured[device.index].compactMapValues { $0 } }
        for receiver in devices.indices {
            for owner in devices.indices where owner != receiver {
                let files = everyone[owner]
                for (path, bytes) in files.sorted(by: { $0.key < $1.key }) {
                    let target = devices[receiver].data + "/" + path
                    if Self.holds(target, bytes) { continue }
                    try write(Version(path: path, bytes: bytes, owner: owner, serial: 0, writtenAt: writtenAt(path, by: owner)), to: target,
                              receiver: devices[receiver])
                }
                // What the owner no longer has goes too, when deletions are carried.
                if carriesDeletions {
                    for path in Self.ownPaths(of: devices[owner], at: devices[receiver]) where files[path] == nil {
                        try? FileManager.default.removeItem(atPath: devices[receiver].data + "/" + path)
                    }
                }
            }
            for (path, bytes) in copies {
                let target = devices[receiver].data + "/" + path
                if Self.holds(target, bytes) { continue }
                try FileManager.default.createDirectory(atPath: (target as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
                try bytes.write(to: URL(fileURLWithPath: target))
                devices[receiver].arrivals.record(target, at: devices[receiver].clock.now())
            }
            pending[receiver].removeAll()
        }
    }

    /// Whether the regular file at `path` holds `bytes` (read only when
    /// its size says it may: a settle compares every file of every device
    /// with every other's).
    static func holds(_ path: String, _ bytes: Data) -> Bool {
        var info = stat()
        guard lstat(path, &info) == 0, info.st_mode & S_IFMT == S_IFREG, Int(info.st_size) == bytes.count else { return false }
        return FileManager.default.contents(atPath: path) == bytes
    }

    /// A file's inode, size and change time: whether a command wrote it.
    static func stamp(of path: String) -> [Int] {
        var info = stat()
        guard lstat(path, &info) == 0 else { return [] }
        return [Int(info.st_ino), Int(info.st_size), info.st_ctim.tv_sec, info.st_ctim.tv_nsec]
    }

    /// When the owner last wrote the file at `path` at the latest.
    func writtenAt(_ path: String, by owner: Int) -> Date {
        path.hasSuffix("/changes/session.jsonl") ? lastSlotWrite[owner] ?? lastCommand[owner] : lastCommand[owner]
    }

    static func isRegular(_ path: String) -> Bool {
        var info = stat()
        return lstat(path, &info) == 0 && info.st_mode & S_IFMT == S_IFREG
    }

    /// The conflict copies in a device's folder, by path relative to it.
    static func conflictCopies(in device: FleetDevice) -> [String: Data] {
        var found: [String: Data] = [:]
        for top in ["devices", "history"] {
            for owner in FleetEvidence.names(in: device.data + "/" + top) {
                let folder = top + "/" + owner + (top == "devices" ? "/changes" : "")
                for name in FleetEvidence.names(in: device.data + "/" + folder)
                where name.contains(".sync-conflict-") {
                    found[folder + "/" + name] = FileManager.default.contents(atPath: device.data + "/" + folder + "/" + name)
                }
            }
        }
        return found
    }
}
