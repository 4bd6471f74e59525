import Domain
import Foundation
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

    private static func read(_ path: String) throws -> String? {
        guard let bytes = try POSIXFiles.read(path) else { return nil }
        let text = String(decoding: bytes, as: UTF8.self).trimmed
        guard UUIDText.parse(text) != nil else { throw StoreError.corrupted(path: path, reason: "not a device id") }
        return text
    }
}
