import Domain
import FoundationEssentials
#if canImport(Glibc)
import Glibc
#endif

/// `doctor`'s look at the files of a data directory: its mode, every
/// suite of the store (a damaged one moved aside and its newest readable
/// backup restored on repair), what interrupted writes left, the device
/// id, the history, the audit trail and the hooks. It works on the files
/// themselves, so it runs however damaged they are.
public struct DataDirectoryHealth: HealthInspector {
    public struct Paths: Sendable {
        public var root: String
        /// The old layout's store: the shared suites' files until migrated.
        public var store: String
        /// This machine's store (`devices/<id>/store`): its own suites.
        public var deviceStore: String?
        public var history: String
        public var audit: String
        /// This device's id file, outside the data directory
        /// (`$XDG_STATE_HOME/retime/device-id`).
        public var deviceID: String
        /// Where the id was kept before, adopted once: `DATA_DIR/device-id`.
        public var legacyDeviceID: String

        public init(root: String, store: String, deviceStore: String? = nil, history: String, audit: String, deviceID: String,
                    legacyDeviceID: String) {
            self.root = root
            self.store = store
            self.deviceStore = deviceStore
            self.history = history
            self.audit = audit
            self.deviceID = deviceID
            self.legacyDeviceID = legacyDeviceID
        }
    }

    let paths: Paths
    /// This machine's suites.
    let store: JSONFileStore
    /// The old layout's suites (the shared ones, until migrated).
    let legacy: JSONFileStore
    /// The data folder's store: its shared suites are checked in the
    /// devices' change logs once the folder has been migrated.
    let folder: DataFolderStore?

    public init(paths: Paths, folder: DataFolderStore? = nil) {
        self.paths = paths
        self.folder = folder
        store = JSONFileStore(directory: paths.deviceStore ?? paths.store)
        legacy = JSONFileStore(directory: paths.store)
    }

    public func inspect(repairing: Bool) async -> [HealthCheck] {
        // File types first: a lock that is a FIFO would stop a suite's repair.
        var checks = [permissions(repairing), irregularFilesCheck(repairing)]
        let machine = Set(store.suiteNames()).subtracting(DataFolderStore.sharedSuites)
        // The shared suites any device has written (schedules, allowances)
        // besides the three every folder has.
        let written = folder.map { folder in
            DataFolderStore.sharedSuites.filter { !folder.shared.logFiles(of: $0).isEmpty }
        } ?? []
        for suite in machine.union(legacy.suiteNames()).union(["groups", "session", "config"]).union(written).sorted() {
            if let folder, DataFolderStore.sharedSuites.contains(suite), !folder.holdsUnmigrated(suite) {
                checks.append(sharedSuiteCheck(suite, in: folder.shared, repairing))
            } else {
                checks.append(suiteCheck(suite, in: machine.contains(suite) ? store : legacy, repairing))
            }
        }
        checks += tempFileChecks(repairing)
        checks.append(deviceCheck(repairing))
        checks.append(historyCheck())
        checks.append(await auditCheck())
        checks.append(hooksCheck(repairing))
        return checks
    }

    private func permissions(_ repairing: Bool) -> HealthCheck {
        let data = paths.root
        // stat(2) rather than FileManager's attributes, which also look the
        // owner's name up (NSS, which a static binary loads at run time).
        var info = stat()
        guard stat(data, &info) == 0 else {
            return HealthCheck(name: "data directory", status: .ok, detail: "\(data) does not exist yet (made on first write)")
        }
        let mode = Int(info.st_mode & 0o7777)
        if mode & 0o077 != 0 {
            if repairing, chmod(data, 0o700) == 0 {
                return HealthCheck(name: "data directory", status: .repaired, detail: "\(data) was readable by others; now 0700")
            }
            return HealthCheck(name: "data directory", status: .warning, detail: "\(data) is mode \(String(mode, radix: 8)); expected 700")
        }
        return HealthCheck(name: "data directory", status: .ok, detail: data)
    }

    private func suiteCheck(_ suite: String, in store: JSONFileStore, _ repairing: Bool) -> HealthCheck {
        let name = "\(suite) data"
        let backups = (try? store.validBackups(of: suite).count) ?? 0
        switch store.health(of: suite) {
        case .missing: return HealthCheck(name: name, status: .ok, detail: "none yet")
        case .healthy(let keys):
            return HealthCheck(name: name, status: .ok, detail: "\(keys) entr\(keys == 1 ? "y" : "ies"), \(backups) backup(s)")
        case .damaged(let error):
            guard repairing else {
                return HealthCheck(name: name, status: .error, detail: "\(error); \(backups) readable backup(s); run 'retime doctor --repair'")
            }
            do {
                let done = try store.repair(suite)
                let restored = done.restoredFrom.map { from in
                    "restored \(from)" + (done.backupWrittenAt.map { "; changes after \(Self.localDateTime($0)) are lost" } ?? "")
                } ?? "no readable backup: it starts empty and everything it held is lost"
                return HealthCheck(name: name, status: .repaired, detail: "moved the damaged file to \(done.movedTo); \(restored)")
            } catch {
                return HealthCheck(name: name, status: .error, detail: "\(error)")
            }
        }
    }

    /// A shared suite, merged from every device's change log; a damaged
    /// log is mended on repair, keeping every line that can be read.
    private func sharedSuiteCheck(_ suite: String, in shared: ReplicatedLogStore, _ repairing: Bool) -> HealthCheck {
        let name = "\(suite) data"
        let (health, devices) = shared.health(of: suite)
        switch health {
        case .missing: return HealthCheck(name: name, status: .ok, detail: "none yet")
        case .healthy(let keys):
            let found = "\(keys) entr\(keys == 1 ? "y" : "ies") from \(devices) device(s)"
            // Another device's log that does not read: left out, named,
            // never mended here (the sync tool would carry that to it).
            let others = (try? shared.unreadableLogs(of: suite)) ?? []
            guard let first = others.first else { return HealthCheck(name: name, status: .ok, detail: found) }
            return HealthCheck(name: name, status: .warning,
                               detail: found + "; another device's log does not read and is left out until it does: \(first.error)"
                                   + (others.count > 1 ? " (and \(others.count - 1) more)" : "")
                                   + "; its own device mends it ('retime doctor --repair' there); nothing here changes it")
        case .damaged(let error):
            guard repairing, let path = error.path, path.hasSuffix(".jsonl") else {
                return HealthCheck(name: name, status: .error, detail: "\(error); run 'retime doctor --repair'")
            }
            do {
                let done = try shared.repair(path, now: Date())
                let copy = done.copyMade.map { "put back \(done.restored) line(s) of its last good copy (\(Self.localDateTime($0)))" }
                    ?? "there is no good copy of it"
                let lost = done.dropped == 0 ? "nothing was lost"
                    : done.copyMade.map { "\(done.dropped) unreadable line(s) left out: a change made after \(Self.localDateTime($0)) that only they held is lost" }
                    ?? "\(done.dropped) unreadable line(s) left out (the changes they held are lost)"
                return HealthCheck(name: name, status: .repaired,
                                   detail: "moved the damaged file to \(done.movedTo); kept its \(done.kept) readable line(s); \(copy); \(lost)")
            } catch {
                return HealthCheck(name: name, status: .error, detail: "\(error)")
            }
        }
    }

    private func historyCheck() -> HealthCheck {
        let history = JSONLinesSessionHistory(directory: paths.history, deviceID: "unused",
                                              logger: Logger(label: "retime.doctor", handler: InMemoryLogHandler(logLevel: .critical)))
        guard let audit = try? history.audit() else { return HealthCheck(name: "history", status: .error, detail: "cannot read \(paths.history)") }
        guard audit.malformed.isEmpty else {
            let lines = audit.malformed.prefix(5).map { "\($0.path):\($0.number)" }.joined(separator: ", ")
            return HealthCheck(name: "history", status: .warning,
                               detail: "\(audit.sessions) sessions; \(audit.malformed.count) unreadable line(s) skipped: \(lines)")
        }
        return HealthCheck(name: "history", status: .ok, detail: "\(audit.sessions) sessions in \(audit.segments) segment(s)")
    }

    /// `2026-11-23 09:00`, local time, for a backup's age.
    static func localDateTime(_ date: Date) -> String {
        var seconds = time_t(date.timeIntervalSince1970)
        var parts = tm()
        localtime_r(&seconds, &parts)
        func two(_ value: Int32) -> String { value < 10 ? "0\(value)" : "\(value)" }
        let year = String(parts.tm_year + 1900)
        return String(repeating: "0", count: max(0, 4 - year.count)) + year + "-\(two(parts.tm_mon + 1))-\(two(parts.tm_mday)) "
            + "\(two(parts.tm_hour)):\(two(parts.tm_min))"
    }
}
