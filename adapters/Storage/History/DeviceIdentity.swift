import Domain
import FoundationEssentials
#if canImport(Glibc)
import Glibc
#endif

/// This device's id: a lowercase UUID kept in `file`
/// (`$XDG_STATE_HOME/retime/device-id`), outside the data folder, so a data
/// folder synced between machines never carries one machine's id to
/// another; two homes are two devices, two data directories under one home
/// are one. History segments and everything under `devices/<id>/` are
/// written per device, so a shared folder merges without write conflicts.
///
/// `legacyFile` is where the id was kept before (`DATA_DIR/device-id`):
/// adopted once when `file` does not exist yet, then renamed to
/// `device-id.migrated` so that a machine that receives the synced folder
/// later does not adopt it too (docs/storage.md, "Devices").
public struct DeviceIdentity: Sendable {
    /// Where the id is kept.
    public let file: String
    /// The data directory's old `device-id`, if there is a data directory.
    public let legacyFile: String?

    public init(file: String, legacyFile: String? = nil) {
        self.file = file
        self.legacyFile = legacyFile
    }

    /// `$XDG_STATE_HOME/retime/device-id` when that is an absolute path
    /// (the XDG rule for a relative one is to ignore it), else
    /// `$HOME/.local/state/retime/device-id`.
    public static func file(environment: [String: String]) -> String {
        if let state = environment["XDG_STATE_HOME"], state.hasPrefix("/") { return state + "/retime/device-id" }
        let home = environment["HOME"].flatMap { $0.isEmpty ? nil : $0 } ?? FileManager.default.homeDirectoryForCurrentUser.path
        return home + "/.local/state/retime/device-id"
    }

    /// What a legacy file becomes once its id is adopted.
    public static func migrated(_ legacyFile: String) -> String { legacyFile + ".migrated" }

    /// Reads the id, or adopts the data directory's old one, or creates a
    /// new one. The file appears whole (written aside, then hard-linked
    /// into place), so when several processes race, the first link wins
    /// and the others read its id.
    public func loadOrCreate() throws -> String {
        if let existing = try Self.read(file) {
            retireLegacy(ifItNames: existing)
            return existing
        }
        let adopted = try legacyFile.flatMap { try Self.read($0) }
        let id = try place(adopted ?? UUIDText.lowercase(UUID()))
        retireLegacy(ifItNames: id)
        return id
    }

    /// What `doctor` finds: the id, none yet, or a damaged file (this
    /// device's, or the old one in the data directory still to be adopted).
    public func check() -> Result<String?, StoreError> {
        let path = damagedCandidate
        do { return .success(try Self.read(path)) } catch let error as StoreError {
            return .failure(error)
        } catch {
            return .failure(.unreadable(path: path, reason: "\(error)"))
        }
    }

    /// `doctor --repair` of a damaged id: the file is moved aside (never
    /// deleted) and replaced by the id of this device's history folder (in
    /// `historyDirectory`) when the damaged text names exactly one (a
    /// truncated id, say), else by a new id (the old folder's sessions are
    /// still read: devices merge by union). Returns the id in force and
    /// where the damaged file went.
    public func repair(historyDirectory: String, now: Date = Date()) throws -> (id: String, movedTo: String, recovered: Bool) {
        let path = damagedCandidate
        let damaged = String(decoding: (try? POSIXFiles.read(path, limit: 4_096)) ?? [], as: UTF8.self).trimmed.lowercased()
        let aside = path + ".corrupt-" + Timestamp.format(now, fractionDigits: 0).replacingAll(":", with: "")
        guard rename(path, aside) == 0 else { throw StoreError.notWritable(path: path, reason: POSIXFiles.reason()) }
        let folders = POSIXFiles.names(in: historyDirectory).filter { UUIDText.parse($0) != nil }
        let matches = damaged.isEmpty ? [] : folders.filter { $0.hasPrefix(damaged) }
        guard matches.count == 1 else { return (try loadOrCreate(), aside, false) }
        if path == file {
            try POSIXFiles.writeAtomically(Array((matches[0] + "\n").utf8), to: file)
        } else {
            _ = try place(matches[0])
        }
        return (matches[0], aside, true)
    }

    /// The file a damaged id is in: this device's own once it exists, else
    /// the data directory's old one, which the next command would adopt.
    private var damagedCandidate: String {
        var info = stat()
        guard lstat(file, &info) != 0, errno == ENOENT, let legacyFile, lstat(legacyFile, &info) == 0 else { return file }
        return legacyFile
    }

    /// Links `candidate` into place unless another process got there first;
    /// returns the id in force.
    private func place(_ candidate: String) throws -> String {
        let directory = POSIXFiles.parentDirectory(of: file)
        try POSIXFiles.ensureDirectory(directory)
        let temp = "\(file).tmp-\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
        let fd = open(temp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0o600)
        guard fd >= 0 else { throw StoreError.notWritable(path: file, reason: POSIXFiles.reason()) }
        defer { unlink(temp) }
        do {
            try POSIXFiles.writeAll(fd, Array((candidate + "\n").utf8), path: file)
            fsync(fd)
            close(fd)
        } catch {
            close(fd)
            throw error
        }
        if link(temp, file) == 0 {
            POSIXFiles.syncDirectory(directory)
            return candidate
        }
        guard errno == EEXIST, let winner = try Self.read(file) else {
            throw StoreError.notWritable(path: file, reason: POSIXFiles.reason())
        }
        return winner
    }

    /// Renames the data directory's old id aside once this device's own
    /// file holds it; also finishes a migration a crash interrupted between
    /// the link and the rename. An old file naming another id is another
    /// device's and is left alone. Best effort: failing leaves it for the
    /// next command, and the id in force is already this device's own.
    private func retireLegacy(ifItNames id: String) {
        guard let legacyFile, (try? Self.read(legacyFile)) == id else { return }
        if rename(legacyFile, Self.migrated(legacyFile)) == 0 { POSIXFiles.syncDirectory(POSIXFiles.parentDirectory(of: legacyFile)) }
    }

    private static func read(_ path: String) throws -> String? {
        guard let bytes = try POSIXFiles.read(path, limit: 4_096) else { return nil }
        let text = String(decoding: bytes, as: UTF8.self).trimmed
        guard UUIDText.parse(text) != nil else { throw StoreError.corrupted(path: path, reason: "not a device id") }
        return text
    }
}
