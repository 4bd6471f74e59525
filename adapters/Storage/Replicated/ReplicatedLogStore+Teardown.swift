#if canImport(Glibc)
import Domain
import FoundationEssentials
import Glibc
#endif

/// The end of a command's use of the store (its teardown): what this
/// process leaves behind for the next one, in any process.
extension ReplicatedLogStore {
    /// Drops the merged suites it keeps: the next read merges the files
    /// again. First, the snapshot of each suite this process changed is
    /// made from the logs as they are now (reading on from where this
    /// process stopped: only its own last lines), so the next command, in
    /// any process, is served from it; a command's teardown calls this.
    public func forgetParsedSuites() {
        // Compacted first: a snapshot made before would name the old log.
        var copied: Set<String> = []   // compacted, which keeps the good copy too
        for suite in compactionDue.withLock({ due in defer { due.removeAll() }; return due.sorted() }) {
            guard let device = try? deviceID() else { continue }
            let folder = directory + "/" + device + "/changes"
            // Another process holding the lock is left alone: compaction is
            // only ever an economy, and its next write will see to it.
            guard let lock = try? FileLock(path: folder + "/" + suite + ".lock", timeout: 0) else { continue }
            if let dropped = try? compact(suite, at: folder + "/" + suite + ".jsonl", device: device), dropped > 0 { copied.insert(suite) }
            _ = consume lock
        }
        let wrote = wroteSuites.withLock { wrote in defer { wrote.removeAll() }; return wrote }
        for suite in wrote.subtracting(copied).sorted() { keepGoodCopy(of: suite) }
        // A suite merged here that another process wrote last (one killed
        // before its own teardown) gets its copy too, when the log outgrew it.
        for suite in cache.withLock({ Set($0.keys) }).subtracting(wrote).sorted() where goodCopyIsBehind(suite) { keepGoodCopy(of: suite) }
        for suite in changedSuites.withLock({ changed in defer { changed.removeAll() }; return changed.sorted() }) {
            guard let path = snapshotPath(of: suite) else { continue }
            // A write from the snapshot brought it up to date: no merge.
            if let kept = served.withLock({ $0[suite] }), let now = try? stamped(suite), now.stamps == kept.stamps {
                kept.snapshot.write(to: path)
                continue
            }
            guard let state = try? merged(suite) else { continue }
            saveSnapshot(of: state, to: path)
        }
        cache.withLock { $0.removeAll() }
        served.withLock { $0.removeAll() }
        goodLogs.withLock { $0.removeAll() }
        checkedLogs.withLock { $0.removeAll() }
        listings.forget()
        suiteFiles.withLock { $0 = (nil, [:]) }
    }
}
