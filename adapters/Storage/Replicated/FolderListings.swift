#if canImport(Glibc)
import FoundationEssentials
import Glibc
import Synchronization
#endif

/// The names in the folders a replicated store lists (`devices/` and each
/// device's `changes/`), listed once per process while the folder stays as
/// it was: every later read checks the folder's stamp (one `stat`) instead
/// of listing it again. A command reading four suites of ten devices listed
/// 44 folders; it now lists 11 and stats the rest.
///
/// A listing is kept only when it cannot have missed a change: a folder's
/// times have the kernel's coarse granularity (a clock tick, a few ms), so
/// an entry added in the same tick as the listing may leave the stamp
/// unchanged. A listing is therefore kept only if the folder last changed
/// well before the listing began (`settled`), as git treats racily clean
/// files; a folder changed just now is listed again at each read.
final class FolderListings: Sendable {
    private struct Listing {
        var stamp: POSIXFiles.FileStamp
        var names: [String]
    }

    /// A folder's path with its hash worked out once: a command looks a
    /// folder up a hundred times, and hashing a path of eighty bytes each
    /// time was a third of those looks.
    struct Folder: Hashable, Sendable {
        let path: String
        private let hashed: Int

        init(_ path: String) {
            self.path = path
            hashed = path.hashValue
        }

        func hash(into hasher: inout Hasher) { hasher.combine(hashed) }

        static func == (lhs: Folder, rhs: Folder) -> Bool { lhs.hashed == rhs.hashed && lhs.path == rhs.path }
    }

    private let kept = Mutex<[Folder: Listing]>([:])
    /// How long before a listing its folder must have last changed for the
    /// listing to be kept: above any clock tick of the file times.
    static let settled: Int64 = 100_000_000

    /// The names in `folder` (not `.` and `..`), empty if it cannot be listed.
    func names(in folder: Folder) -> [String] {
        guard let stamp = Self.stamp(folder.path) else {
            kept.withLock { _ = $0.removeValue(forKey: folder) }
            return []
        }
        if let listing = kept.withLock({ $0[folder] }), listing.stamp == stamp { return listing.names }
        let began = Self.wallNanoseconds()
        let names = POSIXFiles.names(in: folder.path)
        // Kept only if nothing changed while listing, and the last change
        // is old enough that a later one moves the stamp.
        if let after = Self.stamp(folder.path), after == stamp,
           max(stamp.modifiedNanoseconds, stamp.changedNanoseconds) < began - Self.settled {
            kept.withLock { $0[folder] = Listing(stamp: stamp, names: names) }
        } else {
            kept.withLock { _ = $0.removeValue(forKey: folder) }
        }
        return names
    }

    /// Forgets every listing (the store's `forgetParsedSuites`).
    func forget() {
        kept.withLock { $0.removeAll() }
    }

    /// The stamp of the folder `path` names (following a symlink, as the
    /// listing does); nil if there is none.
    private static func stamp(_ path: String) -> POSIXFiles.FileStamp? {
        var info = stat()
        // `withCString` hands over the string's own bytes; passing the
        // String made a C copy of it at each of a command's hundred looks.
        guard path.withCString({ stat($0, &info) }) == 0 else { return nil }
        return POSIXFiles.FileStamp(info)
    }

    /// The wall clock, as the kernel stamps files with it.
    static func wallNanoseconds() -> Int64 {
        var now = timespec()
        clock_gettime(CLOCK_REALTIME, &now)
        return Int64(now.tv_sec) * 1_000_000_000 + Int64(now.tv_nsec)
    }
}
