#if canImport(Glibc)
import Domain
import FoundationEssentials
import Glibc
#endif

/// This device's last good state (semantics.md, "My own damage is
/// recoverable"): each process that wrote a suite keeps, when it is done,
/// a copy of this device's log of it as it last read whole, beside the
/// snapshots (`devices/<id>/snapshots/<suite>.log`, a cache a sync tool
/// need not carry). `doctor --repair` of a damaged log of this device puts
/// back its readable lines and every line of that copy, so no record the
/// last good state held is lost, and says what may be.
extension ReplicatedLogStore {
    /// `devices/<this id>/snapshots/<suite>.log`.
    func goodCopyPath(of suite: String) -> String? {
        guard let device = try? deviceID() else { return nil }
        return directory + "/" + device + "/snapshots/" + suite + ".log"
    }

    /// Keeps the copy of this device's log of `suite`: the lines this
    /// process read and wrote, when they are the whole file as it is (no
    /// read again), else the file read again, if every line of it reads.
    /// Written without `fsync`, as a snapshot: a lost copy is the one
    /// before, a torn one is never read (`rename`).
    func keepGoodCopy(of suite: String) {
        guard let device = try? deviceID(), let copy = goodCopyPath(of: suite) else { return }
        let path = directory + "/" + device + "/changes/" + suite + ".jsonl"
        var bytes: [UInt8]
        if let written = goodLogs.withLock({ $0[suite] }), (try? POSIXFiles.FileStamp.current(path)) == written.stamp {
            bytes = written.bytes
        } else if let kept = keptReader(suite), kept.indexedPath == path, let progress = kept.files[path], kept.indexed.count == progress.lines,
           let now = try? POSIXFiles.FileStamp.current(path), now == progress.stamp, now.size == Int64(progress.consumed) {
            bytes = []
            bytes.reserveCapacity(progress.consumed)
            for line in kept.indexed { bytes += line.bytes + [0x0A] }
        } else {
            guard let read = try? POSIXFiles.read(path, limit: ChangeLogReader.readLimit), read.last == 0x0A,
                  read.split(separator: 0x0A).allSatisfy({ (try? ChangeLine.decodeLine(Array($0), values: false)) != nil }) else { return }
            bytes = read
        }
        try? POSIXFiles.ensureDirectory(POSIXFiles.parentDirectory(of: copy))
        POSIXFiles.writeCache(bytes, to: copy)
    }

    /// Keeps `bytes`, every line of which reads, as the copy of this
    /// device's log of `suite`: what a compaction just wrote, so that the
    /// process does not read the log it rewrote again to copy it.
    func keepGoodCopy(of suite: String, bytes: [UInt8]) {
        guard let copy = goodCopyPath(of: suite) else { return }
        try? POSIXFiles.ensureDirectory(POSIXFiles.parentDirectory(of: copy))
        POSIXFiles.writeCache(bytes, to: copy)
    }

    /// Whether this device's log of `suite` differs in size from its good
    /// copy (or has none): two `stat`s.
    func goodCopyIsBehind(_ suite: String) -> Bool {
        guard let device = try? deviceID(), let copy = goodCopyPath(of: suite) else { return false }
        var log = stat(), kept = stat()
        guard stat(directory + "/" + device + "/changes/" + suite + ".jsonl", &log) == 0 else { return false }
        return stat(copy, &kept) != 0 || kept.st_size != log.st_size
    }

    /// The lines of the good copy of `suite`, each that reads, and when it
    /// was made; nil when there is none.
    func goodCopy(of suite: String) -> (lines: [[UInt8]], made: Date)? {
        guard let copy = goodCopyPath(of: suite), let (bytes, stamp) = try? POSIXFiles.readStamped(copy, limit: ChangeLogReader.readLimit)
        else { return nil }
        let lines = bytes.split(separator: 0x0A).map(Array.init).filter { (try? ChangeLine.decodeLine($0, values: false)) != nil }
        return (lines, Date(timeIntervalSince1970: Double(stamp.modifiedNanoseconds) / 1e9))
    }
}
