import Domain
import FoundationEssentials
#if canImport(Glibc)
import Glibc
#endif

/// The passcode every device of a data folder shares (docs/storage.md,
/// "The passcode"): each device keeps its latest change in its own
/// `devices/<id>/passcode.json`, rewritten whole (temp file, `fsync`,
/// rename) and never appended to, so a removed hash is gone from disk;
/// readers take the newest record of every device by the hybrid clock.
///
/// A device writes only its own file. A sync tool's temporary or partial
/// file is never read (only exact names are); a conflict copy
/// (`passcode.sync-conflict-….json`) is one more record of its device; a
/// file that is not a whole record is passed over and named in
/// `unreadable`, for `sync status` and `doctor`.
public struct SharedPasscodes: Sendable {
    public static let fileName = "passcode.json"
    /// `DATA_DIR/devices`.
    public let devices: String
    private let deviceID: @Sendable () throws -> String

    public init(devices: String, deviceID: @escaping @Sendable () throws -> String) {
        self.devices = devices
        self.deviceID = deviceID
    }

    /// What the devices' files hold now.
    struct Reading: Sendable {
        /// The newest record of any device, the passcode in force.
        var newest: PasscodeRecord?
        /// The newest record in this device's own files.
        var own: PasscodeRecord? { ownFiles.map(\.record).max { $0.at < $1.at } }
        /// This device's files (its record and conflict copies of it) and what each holds.
        var ownFiles: [(path: String, record: PasscodeRecord)] = []
        /// Files that are not a whole record (paths).
        var unreadable: [String] = []
    }

    /// This device's id.
    func thisDevice() throws -> String { try deviceID() }

    /// Every device's records, merged.
    func read() throws -> Reading {
        let this = try deviceID()
        var reading = Reading()
        for device in POSIXFiles.names(in: devices).sorted() where HybridTimestamp.isDeviceID(device) {
            for path in Self.files(in: devices + "/" + device) {
                let record: PasscodeRecord
                do {
                    guard let bytes = try POSIXFiles.read(path, limit: PasscodeRecord.readLimit) else { continue }
                    record = try PasscodeRecord.decode(bytes, path: path)
                } catch {
                    reading.unreadable.append(path)
                    continue
                }
                if reading.newest.map({ record.at > $0.at }) ?? true { reading.newest = record }
                if device == this { reading.ownFiles.append((path, record)) }
            }
        }
        return reading
    }

    /// The records of one device's folder: `passcode.json` and the
    /// conflict copies a sync tool made of it, never its temporaries.
    static func files(in folder: String) -> [String] {
        POSIXFiles.names(in: folder).sorted().filter { name in
            name == fileName || (SyncToolFiles.isConflictCopy(name) && SyncToolFiles.original(of: name) == fileName)
        }.map { folder + "/" + $0 }
    }

    /// Replaces this device's record by `record`, durably and atomically.
    @discardableResult
    func write(_ record: PasscodeRecord) throws -> String {
        let path = try ownPath()
        try POSIXFiles.ensureDirectory(POSIXFiles.parentDirectory(of: path))
        try POSIXFiles.writeAtomically(try record.encoded(), to: path)
        return path
    }

    /// This device's own path of its record.
    func ownPath() throws -> String { devices + "/" + (try deviceID()) + "/" + Self.fileName }

    /// Takes the hash out of this device's records older than `newest`:
    /// such a record can never be the passcode again, and a hash must not
    /// outlive its change on disk, where it could be cracked offline. Its
    /// own file is rewritten as a removal at the same reading (a change a
    /// sync tool carries, as it may not carry a deletion: rsync without
    /// `--delete`); a conflict copy of it is removed. Only under this
    /// device's lock (another of its processes may be writing the record);
    /// `keeping` is a path just written.
    func dropSuperseded(_ reading: Reading, newest: HybridTimestamp, keeping: String?) throws {
        let own = try ownPath()
        for (path, record) in reading.ownFiles where record.at < newest && path != keeping && record.hash != nil {
            if path == own {
                try write(PasscodeRecord(hash: nil, at: record.at))
            } else {
                unlink(path)
            }
        }
    }

    /// The newest record's device, name and time, as `auth status` shows it.
    func origin(of record: PasscodeRecord) -> PasscodeOrigin {
        let device = record.at.device
        let name = (try? DeviceFile.read(devices + "/" + device + "/" + DeviceFile.name))??.deviceName
        return PasscodeOrigin(device: device, deviceName: name, at: record.at.date, isThisDevice: device == (try? deviceID()))
    }

    /// The newest record of `device`'s files, for `sync status`'s "last
    /// change"; damaged files are added to `unreadable` (relative to `root`).
    static func newest(ofDeviceFolder folder: String, root: String, unreadable: inout [String]) -> HybridTimestamp? {
        var newest: HybridTimestamp?
        for path in files(in: folder) {
            do {
                guard let bytes = try POSIXFiles.read(path, limit: PasscodeRecord.readLimit) else { continue }
                let record = try PasscodeRecord.decode(bytes, path: path)
                if newest.map({ record.at > $0 }) ?? true { newest = record.at }
            } catch {
                unreadable.append(path.hasPrefix(root + "/") ? String(path.dropFirst(root.count + 1)) : path)
            }
        }
        return newest
    }
}
