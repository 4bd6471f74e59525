import Domain
import FoundationEssentials
import JSONDocument
#if canImport(Glibc)
import Glibc
#endif

/// `SyncFolder` over a data folder on disk (docs/storage.md, "Devices"):
/// devices are the `devices/<id>/` and `history/<id>/` folders; a device's
/// last change is the newest hybrid clock reading at the end of its change
/// logs and the newest end or revision in its history, read from the tails
/// of the files only; conflict copies are found by a bounded walk that
/// follows no symlink.
public struct FileSyncFolder: SyncFolder {
    public let root: String
    private let id: @Sendable () throws -> String
    private let now: @Sendable () -> Date

    /// How much of the end of each log is read for its newest change.
    static let tailBytes = 64 << 10
    /// How often `recordSeen` may write: often enough that another device
    /// sees this one caught up within seconds (`behindSeconds`), seldom
    /// enough that a busy folder does not keep the sync tool copying it.
    static let seenInterval: Double = 5
    /// The walk for conflict copies stops after this many entries or this depth.
    static let walkLimit = 200_000
    static let walkDepth = 8

    public init(root: String, deviceID: @escaping @Sendable () throws -> String, now: @escaping @Sendable () -> Date = { Date() }) {
        self.root = root
        self.id = deviceID
        self.now = now
    }

    var devicesDirectory: String { root + "/devices" }
    var historyDirectory: String { root + "/history" }

    func deviceFilePath(_ device: String) -> String {
        devicesDirectory + "/" + device + "/" + DeviceFile.name
    }

    public func deviceID() throws -> String { try id() }

    public func deviceName() throws -> String? {
        try DeviceFile.read(deviceFilePath(try id()))?.deviceName
    }

    public func setDeviceName(_ name: String) throws {
        let path = deviceFilePath(try id())
        var file = try DeviceFile.read(path) ?? DeviceFile()
        file.deviceName = name
        try file.write(to: path)
    }

    @discardableResult
    public func recordSeen(_ seen: [String: HybridTimestamp]) throws -> Bool {
        let path = deviceFilePath(try id())
        let existing = try DeviceFile.read(path)
        if let existing {
            if existing.seen == seen { return false }
            // The first record is written at once; later ones at most once every `seenInterval`.
            if !existing.seen.isEmpty, let stamp = try POSIXFiles.FileStamp.current(path),
               now().timeIntervalSince1970 - Double(stamp.modifiedNanoseconds) / 1e9 < Self.seenInterval { return false }
        } else if seen.isEmpty {
            return false
        }
        var file = existing ?? DeviceFile()
        file.seen = seen
        try file.write(to: path)
        return true
    }

    public func survey() throws -> SyncSurvey {
        let this = try id()
        var ids = Set([this])
        for folder in [devicesDirectory, historyDirectory] {
            for name in POSIXFiles.names(in: folder) where HybridTimestamp.isDeviceID(name) && isDirectory(folder + "/" + name) {
                ids.insert(name)
            }
        }
        var unreadable: [String] = []
        var devices: [SyncSurvey.Device] = []
        for device in ids.sorted() {
            var entry = SyncSurvey.Device(id: device)
            do {
                if let file = try DeviceFile.read(deviceFilePath(device)) {
                    entry.name = file.deviceName
                    entry.seen = file.seen
                }
            } catch {
                unreadable.append(relative(deviceFilePath(device)))
            }
            entry.lastChange = newestChange(of: device, unreadable: &unreadable)
            devices.append(entry)
        }
        return SyncSurvey(device: this, devices: devices, conflicts: conflictCopies(), unreadable: unreadable.sorted(),
                          changes: changes(of: this))
    }

    /// This device's changes in its own logs: each line's stamp and its
    /// clock's reading then (`ChangeLine.physicalReading`).
    private func changes(of device: String) -> [SyncSurvey.Change] {
        let folder = devicesDirectory + "/" + device + "/changes"
        var changes: [SyncSurvey.Change] = []
        for name in POSIXFiles.names(in: folder) where name.hasSuffix(".jsonl") && !SyncToolFiles.isTemporary(name)
            && !SyncToolFiles.isConflictCopy(name) {
            guard let bytes = try? POSIXFiles.read(folder + "/" + name, limit: ChangeLogReader.readLimit) else { continue }
            for line in bytes.split(separator: 0x0A) {
                guard case .object(let members)? = try? JSONText.parse(Array(line)), case .string(let text)? = members["at"],
                      let at = HybridTimestamp(text: text) else { continue }
                let wall = ChangeLine.physicalReading(at: at, wall: members["wall"]) ?? at.milliseconds
                changes.append(SyncSurvey.Change(at: at, madeAt: Date(timeIntervalSince1970: Double(wall) / 1_000)))
            }
        }
        return changes
    }

    /// The newest change of `device` this machine has: the newest `"at"`
    /// in the tails of its change logs and in its passcode record, and the newest `"endedAt"` or
    /// `"revisedAt"` in the tails of its history files.
    private func newestChange(of device: String, unreadable: inout [String]) -> HybridTimestamp? {
        var newest: HybridTimestamp?
        func consider(_ at: HybridTimestamp?) {
            if let at, newest.map({ at > $0 }) ?? true { newest = at }
        }
        let changes = devicesDirectory + "/" + device + "/changes"
        for name in dataFiles(in: changes) {
            // Read whole, as a merge reads it: what the merge leaves out (a
            // log that does not read, empty, torn before its first line) is
            // named here.
            let path = changes + "/" + name
            var reader = ChangeLogReader()
            do { _ = try ChangeLogReader.read(path, after: nil, into: &reader) } catch {
                unreadable.append(relative(path))
                continue
            }
            consider(reader.latest(notAfter: .max))
        }
        // The passcode's record is a change too; one a sync tool is still
        // copying, or damaged, is named.
        consider(SharedPasscodes.newest(ofDeviceFolder: devicesDirectory + "/" + device, root: root, unreadable: &unreadable))
        let history = historyDirectory + "/" + device
        for name in dataFiles(in: history) {
            let path = history + "/" + name
            guard let lines = tailLines(path) else { unreadable.append(relative(path)); continue }
            var damaged = false
            for line in lines {
                guard case .object(let members)? = try? JSONText.parse(line) else { damaged = true; continue }
                for key in ["endedAt", "revisedAt"] {
                    if case .string(let text)? = members[key], let date = Timestamp.parse(text) {
                        consider(HybridTimestamp(milliseconds: Int64((date.timeIntervalSince1970 * 1_000).rounded()), device: device))
                    }
                }
                if case .array(let batch)? = members["amendments"] {
                    for case .object(let amendment) in batch {
                        if case .string(let text)? = amendment["revisedAt"], let date = Timestamp.parse(text) {
                            consider(HybridTimestamp(milliseconds: Int64((date.timeIntervalSince1970 * 1_000).rounded()), device: device))
                        }
                    }
                }
            }
            if damaged { unreadable.append(relative(path)) }
        }
        return newest
    }

    /// The `.jsonl` files of a folder, conflict copies included, a sync
    /// tool's temporaries left out.
    private func dataFiles(in folder: String) -> [String] {
        POSIXFiles.names(in: folder).sorted().filter {
            !SyncToolFiles.isTemporary($0) && SyncToolFiles.original(of: $0).hasSuffix(".jsonl")
        }
    }

    /// The complete lines at the end of a file (a torn last line, still
    /// being written, left out); nil when it cannot be read or is not a
    /// regular file.
    func tailLines(_ path: String) -> [[UInt8]]? {
        let fd = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK)
        guard fd >= 0 else { return nil }
        defer { close(fd) }
        var info = stat()
        guard fstat(fd, &info) == 0, (info.st_mode & S_IFMT) == S_IFREG else { return nil }
        let size = Int(info.st_size)
        let count = min(size, Self.tailBytes)
        var bytes = [UInt8](repeating: 0, count: count)
        let read = bytes.withUnsafeMutableBytes { pread(fd, $0.baseAddress, count, off_t(size - count)) }
        guard read == count else { return nil }
        var lines = bytes.split(separator: 0x0A, omittingEmptySubsequences: false).map(Array.init)
        // The last piece follows the last newline: torn or empty.
        lines.removeLast()
        // The first piece may be cut by the window.
        if count < size, !lines.isEmpty { lines.removeFirst() }
        return lines.filter { !$0.allSatisfy { $0 == 0x20 || $0 == 0x0D } }
    }

    /// Every `*.sync-conflict-*` file under the data folder, relative to it.
    func conflictCopies() -> [String] {
        var found: [String] = []
        var pending: [(path: String, depth: Int)] = [(root, 0)]
        var visited = 0
        while let (folder, depth) = pending.popLast(), visited < Self.walkLimit {
            for name in POSIXFiles.names(in: folder) {
                visited += 1
                let path = folder + "/" + name
                var info = stat()
                guard lstat(path, &info) == 0 else { continue }
                if SyncToolFiles.isConflictCopy(name) { found.append(relative(path)) }
                if (info.st_mode & S_IFMT) == S_IFDIR, depth < Self.walkDepth { pending.append((path, depth + 1)) }
            }
        }
        return found.sorted()
    }

    private func isDirectory(_ path: String) -> Bool {
        var info = stat()
        return lstat(path, &info) == 0 && (info.st_mode & S_IFMT) == S_IFDIR
    }

    private func relative(_ path: String) -> String {
        path.hasPrefix(root + "/") ? String(path.dropFirst(root.count + 1)) : path
    }
}
