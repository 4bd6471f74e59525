import Domain
import FoundationEssentials
#if canImport(Glibc)
import Glibc
#endif

/// What `doctor` learns of a suite's file.
public enum SuiteHealth: Sendable, Equatable {
    case missing
    case healthy(keys: Int)
    case damaged(StoreError)
}

/// What `doctor --repair` did to a damaged suite.
public struct SuiteRepair: Sendable, Equatable {
    /// Where the damaged file now is; it is never deleted.
    public var movedTo: String
    /// The backup restored, or nil when none was readable (the suite is then empty).
    public var restoredFrom: String?
    /// When that backup was written: changes after it are lost.
    public var backupWrittenAt: Date?
}

extension JSONFileStore {
    /// The suites that have a file in the store's directory.
    public func suiteNames() -> [String] {
        ((try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? [])
            .filter { $0.hasSuffix(".json") }.map { String($0.dropLast(5)) }.filter(SuiteName.isValid).sorted()
    }

    public func health(of suite: String) -> SuiteHealth {
        do {
            guard let bytes = try POSIXFiles.read(try path(of: suite)) else { return .missing }
            return .healthy(keys: try SuiteFile.decode(bytes, path: try path(of: suite)).values.count)
        } catch let error as StoreError {
            return .damaged(error)
        } catch {
            return .damaged(.unreadable(path: directory, reason: "\(error)"))
        }
    }

    /// Backups of `suite` that decode, newest first.
    public func validBackups(of suite: String) throws -> [String] {
        try backupPaths(of: suite).filter { path in
            guard let bytes = try? POSIXFiles.read(path) else { return false }
            return (try? SuiteFile.decode(bytes, path: path)) != nil
        }
    }

    /// Moves a damaged suite file aside (never deleting it) and puts the
    /// newest readable backup in its place, under the suite's lock.
    public func repair(_ suite: String, now: Date = Date()) throws -> SuiteRepair {
        let path = try path(of: suite)
        try POSIXFiles.ensureDirectory(directory)
        let lock = try FileLock(path: directory + "/" + suite + ".lock", timeout: lockTimeout)
        let aside = path + ".corrupt-" + Timestamp.format(now, fractionDigits: 0).replacingAll(":", with: "")
        guard rename(path, aside) == 0 else { throw StoreError.notWritable(path: path, reason: POSIXFiles.reason()) }
        POSIXFiles.syncDirectory(directory)
        var repair = SuiteRepair(movedTo: aside)
        if let backup = try validBackups(of: suite).first, let bytes = try POSIXFiles.read(backup) {
            try POSIXFiles.writeAtomically(bytes, to: path)
            repair.restoredFrom = backup
            repair.backupWrittenAt = (try? POSIXFiles.linkStatus(backup)).flatMap { $0 }
                .map { Date(timeIntervalSince1970: Double($0.modifiedNanoseconds) / 1e9) }
        }
        _ = consume lock
        return repair
    }

    /// Removes the temp files of writers that are gone (killed mid-write):
    /// for a store only one process writes (the system service's), at start.
    @discardableResult
    public func removeTempFilesOfDeadWriters() -> Int {
        POSIXFiles.removeTempFilesOfDeadWriters(in: directory) { $0.hasSuffix(".json") }
    }

    /// Temp files left by writers that were killed mid-write: never data.
    /// One younger than a minute may be a live write, and is not listed.
    public func strayTempFiles(now: Date = Date()) -> [String] {
        POSIXFiles.abandonedTempFiles(in: directory, now: now) { $0.hasSuffix(".json") }
    }
}
