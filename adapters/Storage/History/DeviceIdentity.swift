import Domain
import FoundationEssentials
#if canImport(Glibc)
import Glibc
#endif

/// This machine's id within a data directory (`DATA_DIR/device-id`), made
/// once. History segments are written per device, so a data folder synced
/// between machines merges by union without write conflicts.
public enum DeviceIdentity {
    /// Reads the id, or creates it if there is none. The file appears whole
    /// (written aside, then hard-linked into place), so when several
    /// processes race, the first link wins and the others read its id.
    public static func loadOrCreate(in dataDirectory: String) throws -> String {
        let path = dataDirectory + "/device-id"
        if let existing = try read(path) { return existing }
        try POSIXFiles.ensureDirectory(dataDirectory)
        let candidate = UUIDText.lowercase(UUID())
        let temp = "\(path).tmp-\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
        let fd = open(temp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0o600)
        guard fd >= 0 else { throw StoreError.notWritable(path: path, reason: POSIXFiles.reason()) }
        defer { unlink(temp) }
        do {
            try POSIXFiles.writeAll(fd, Array((candidate + "\n").utf8), path: path)
            fsync(fd)
            close(fd)
        } catch {
            close(fd)
            throw error
        }
        if link(temp, path) == 0 {
            POSIXFiles.syncDirectory(dataDirectory)
            return candidate
        }
        guard errno == EEXIST, let winner = try read(path) else {
            throw StoreError.notWritable(path: path, reason: POSIXFiles.reason())
        }
        return winner
    }

    /// What `doctor` finds: the id, none yet, or a damaged file.
    public static func check(in dataDirectory: String) -> Result<String?, StoreError> {
        do { return .success(try read(dataDirectory + "/device-id")) } catch let error as StoreError {
            return .failure(error)
        } catch {
            return .failure(.unreadable(path: dataDirectory + "/device-id", reason: "\(error)"))
        }
    }

    /// `doctor --repair` of a damaged id: the file is moved aside (never
    /// deleted) and replaced by the id of this device's history folder when
    /// the damaged text names exactly one (a truncated id, say), else by a
    /// new id (the old folder's sessions are still read: devices merge by
    /// union). Returns the id in force and where the damaged file went.
    public static func repair(in dataDirectory: String, now: Date = Date()) throws -> (id: String, movedTo: String, recovered: Bool) {
        let path = dataDirectory + "/device-id"
        let damaged = String(decoding: (try? POSIXFiles.read(path, limit: 4_096)) ?? [], as: UTF8.self).trimmed.lowercased()
        let aside = path + ".corrupt-" + Timestamp.format(now, fractionDigits: 0).replacingAll(":", with: "")
        guard rename(path, aside) == 0 else { throw StoreError.notWritable(path: path, reason: POSIXFiles.reason()) }
        let folders = ((try? FileManager.default.contentsOfDirectory(atPath: dataDirectory + "/history")) ?? [])
            .filter { UUIDText.parse($0) != nil }
        let matches = damaged.isEmpty ? [] : folders.filter { $0.hasPrefix(damaged) }
        guard matches.count == 1 else { return (try loadOrCreate(in: dataDirectory), aside, false) }
        try POSIXFiles.writeAtomically(Array((matches[0] + "\n").utf8), to: path)
        return (matches[0], aside, true)
    }

    private static func read(_ path: String) throws -> String? {
        guard let bytes = try POSIXFiles.read(path, limit: 4_096) else { return nil }
        let text = String(decoding: bytes, as: UTF8.self).trimmed
        guard UUIDText.parse(text) != nil else { throw StoreError.corrupted(path: path, reason: "not a device id") }
        return text
    }
}
