#if canImport(Glibc)
import Domain
import FoundationEssentials
import Glibc
import Synchronization
#endif

/// This device's own folder of a data folder (`DATA_DIR/devices/<id>/`),
/// resolved on first use rather than when a process starts: the id is
/// created then (in the state directory, outside the data folder), so a
/// command that never touches this machine's files (`--help`, a parse
/// error) creates nothing, and one that does finds its files already moved.
///
/// Resolving it moves the machine's files of the single-device layout into
/// place, once per process and before anything reads them. Each file is
/// hard-linked to its new name, then unlinked from the old one: a link
/// never replaces a file, and a crash between the two leaves both names on
/// one inode, which the next run recognises and finishes. A file whose new
/// name already holds another file is left where it is (nothing is lost;
/// doctor names it).
public final class LocalDeviceFolder: Sendable {
    /// One file (and, with `rotations`, its `name.1`, `name.2`, ...) moving
    /// from one folder to another.
    public struct Move: Sendable, Equatable {
        public let from: String
        public let to: String
        public let name: String
        public let rotations: Bool

        public init(from: String, to: String, name: String, rotations: Bool = false) {
            self.from = from
            self.to = to
            self.name = name
            self.rotations = rotations
        }

        /// The names of `from` this move concerns, as they are now; a
        /// folder's listing is read once for all the moves out of it.
        func names(listing: (String) -> [String]) -> [String] {
            guard rotations else { return [name] }
            // The prefix and its length made once per move, not per name:
            // every command resolves these moves.
            let prefix = name + ".", length = prefix.utf8.count
            return listing(from).filter { candidate in
                candidate == name || (candidate.utf8.count > length && candidate.hasPrefix(prefix)
                                      && candidate.utf8.dropFirst(length).allSatisfy { $0 >= 0x30 && $0 <= 0x39 })
            }
        }
    }

    private let deviceID: @Sendable () throws -> String
    private let moves: @Sendable (String) -> [Move]
    private let resolved = Mutex<String?>(nil)

    /// `deviceID` reads or creates this device's id; `moves` says, for an
    /// id, which files of the old layout move where.
    public init(deviceID: @escaping @Sendable () throws -> String, moves: @escaping @Sendable (String) -> [Move]) {
        self.deviceID = deviceID
        self.moves = moves
    }

    /// This device's id, its old files moved into its folder first.
    public func id() throws -> String {
        try resolved.withLock { cached in
            if let cached { return cached }
            let id = try deviceID()
            var listings: [String: [String]] = [:]
            let listing = { (folder: String) -> [String] in
                if let names = listings[folder] { return names }
                let names = POSIXFiles.names(in: folder)
                listings[folder] = names
                return names
            }
            for move in moves(id) { try Self.perform(move, listing: listing) }
            cached = id
            return id
        }
    }

    /// Moves what `move` names; safe to run again after a crash at any instant.
    public static func perform(_ move: Move) throws {
        try perform(move, listing: { POSIXFiles.names(in: $0) })
    }

    static func perform(_ move: Move, listing: (String) -> [String]) throws {
        for name in move.names(listing: listing) {
            let from = move.from + "/" + name, to = move.to + "/" + name
            var old = stat()
            guard lstat(from, &old) == 0 else { continue }
            // A directory or FIFO where a file belongs is doctor's to report;
            // linking it would fail, and waiting on it would hang.
            guard (old.st_mode & S_IFMT) == S_IFREG else { continue }
            try POSIXFiles.ensureDirectory(move.to)
            if link(from, to) == 0 {
                unlink(from)
                continue
            }
            // Hard links can be refused (some synced or FUSE folders): a
            // rename then, which only a racing writer could make replace.
            if errno == EPERM || errno == ENOTSUP || errno == EXDEV, access(to, F_OK) != 0 {
                guard rename(from, to) == 0 || errno == ENOENT else { throw StoreError.notWritable(path: to, reason: POSIXFiles.reason()) }
                continue
            }
            guard errno == EEXIST else { throw StoreError.notWritable(path: to, reason: POSIXFiles.reason()) }
            var new = stat()
            // Both names on one inode: a move a crash interrupted.
            if lstat(to, &new) == 0, new.st_ino == old.st_ino, new.st_dev == old.st_dev { unlink(from) }
        }
    }
}
