#if canImport(Glibc)
import Domain
import FoundationEssentials
import Glibc
#endif

/// Summaries of history's months in one file of this device's own folder,
/// `devices/<this id>/snapshots/history.summaries` (docs/history.md,
/// "Reports from summaries"): a cache, like the suites' snapshots beside it.
///
/// - Written aside and renamed, without `fsync`: a lost or torn file is
///   read as none, and the next report makes the summaries again.
/// - Read only whole: a file that is not this format's, of another
///   version, cut short, longer than it says or whose checksum does not
///   match (`MonthSummaryCoding`) is no summaries, never part of them.
/// - Written only by this device, into its own folder, and only when that
///   folder exists (a report never makes it); no other device reads it.
///   What it holds names this machine's files by their stamps (inodes,
///   change times), which no other machine's files share, so a copy a sync
///   tool brings from elsewhere is never taken for current.
public struct FileHistorySummaryStore: HistorySummaryStore {
    /// This device's folder (`devices/<id>`), or nil when this device has
    /// none yet (or its id cannot be read).
    private let deviceFolder: @Sendable () -> String?
    /// The most a summaries file may hold: far above a lifetime of history.
    static let readLimit = 256 << 20
    static let fileName = "history.summaries"

    public init(deviceFolder: @escaping @Sendable () -> String?) {
        self.deviceFolder = deviceFolder
    }

    public func summaries() async -> HistorySummaries {
        guard let path = path(), let bytes = try? POSIXFiles.read(path, limit: Self.readLimit) else { return HistorySummaries() }
        return MonthSummaryCoding.decode(bytes) ?? HistorySummaries()
    }

    public func keep(_ summaries: HistorySummaries) async {
        guard let path = path() else { return }
        guard (try? POSIXFiles.ensureDirectory(POSIXFiles.parentDirectory(of: path))) != nil else { return }
        POSIXFiles.writeCache(MonthSummaryCoding.encode(summaries), to: path)
    }

    /// Where the file is; nil while this device has no folder here.
    private func path() -> String? {
        guard let folder = deviceFolder(), access(folder, F_OK) == 0 else { return nil }
        return folder + "/snapshots/" + Self.fileName
    }
}
