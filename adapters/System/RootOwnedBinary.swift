import Domain
import FoundationEssentials
#if canImport(Glibc)
import Glibc
#endif

/// The copy of retime that the root service runs (`system install`): owned
/// by root, in a directory that only root can write, below directories that
/// only root can write. The binary a user built in their home is theirs to
/// rebuild; run as root it would hand that user root and the power to lift
/// any block, so the unit never names it (docs/shields.md, threat model).
public struct RootOwnedBinary: Sendable {
    /// Where `system install` puts it.
    public static let defaultPath = "/usr/local/libexec/retime/retime"

    public let path: String

    public init(path: String = RootOwnedBinary.defaultPath) {
        self.path = path
    }

    /// What stands in the way of a root-only path.
    public struct Unsafe: Error, CustomStringConvertible, Sendable {
        public let description: String
    }

    /// Copies `source` to `path`, replacing any copy there by one rename (a
    /// service restarted mid-install runs the old binary or the new, never
    /// half of one). Makes the missing directories, root's and 0755, and
    /// first checks that no one but root can write any directory above it.
    public func install(from source: String) throws {
        let directory = POSIXFiles.parentDirectory(of: path)
        // Checked before anything is made below it, and again after.
        if let unsafe = Self.writableByOthers(Self.existingAncestor(of: directory)) { throw Unsafe(description: unsafe) }
        try makeDirectories(directory)
        if let unsafe = Self.writableByOthers(directory) { throw Unsafe(description: unsafe) }
        guard let bytes = try POSIXFiles.read(source, limit: 1 << 30) else {
            throw Unsafe(description: "\(source) does not exist")
        }
        try POSIXFiles.writeAtomically(bytes, to: path, system: .init(mode: 0o755, keepsOwnerAndMode: false, inPlaceWhenFixed: false))
        // Created by root: root's. Said again, so a group of the installer's
        // (sudo keeps root's group; su may not) never owns it.
        guard chown(path, 0, 0) == 0, chmod(path, 0o755) == 0 else {
            throw Unsafe(description: "cannot make \(path) root's: \(POSIXFiles.reason())")
        }
    }

    /// Removes the copy and the directories above it that are left empty
    /// (`/usr/local/libexec/retime`, then `/usr/local/libexec` if install
    /// made it and nothing else is in it), never `/usr/local` or above.
    /// Whether there was a copy to remove.
    @discardableResult
    public func remove() throws -> Bool {
        guard unlink(path) == 0 else {
            guard errno == ENOENT else { throw Unsafe(description: "cannot remove \(path): \(POSIXFiles.reason())") }
            return false
        }
        var directory = POSIXFiles.parentDirectory(of: path)
        // rmdir refuses a directory that is not empty: what stops the walk.
        while !Self.neverRemoved.contains(directory), directory.count > 1, rmdir(directory) == 0 {
            directory = POSIXFiles.parentDirectory(of: directory)
        }
        return true
    }

    /// The directories the walk up from the copy stops at, empty or not.
    private static let neverRemoved: Set<String> = ["/", "/usr", "/usr/local", "/opt"]

    /// The first directory from / down to `directory` (links resolved) that
    /// someone other than root owns or may write, said in words; nil when
    /// there is none.
    public static func writableByOthers(_ directory: String) -> String? {
        guard let resolved = realpath(directory, nil) else { return "\(directory) cannot be resolved: \(POSIXFiles.reason())" }
        let real = String(cString: resolved)
        free(resolved)
        let components = real.split(separator: "/")
        for prefix in ["/"] + components.indices.map({ "/" + components[...$0].joined(separator: "/") }) {
            var info = stat()
            guard lstat(prefix, &info) == 0 else { return "\(prefix) cannot be read: \(POSIXFiles.reason())" }
            if info.st_uid != 0 { return "\(prefix) belongs to uid \(info.st_uid), not root" }
            if info.st_mode & 0o022 != 0 {
                return "\(prefix) may be written by users other than root (mode \(String(info.st_mode & 0o7777, radix: 8)))"
            }
        }
        return nil
    }

    private static func existingAncestor(of directory: String) -> String {
        var candidate = directory
        while access(candidate, F_OK) != 0, candidate != "/", !candidate.isEmpty { candidate = POSIXFiles.parentDirectory(of: candidate) }
        return candidate
    }

    private func makeDirectories(_ directory: String) throws {
        var prefix = ""
        for component in directory.split(separator: "/") {
            prefix += "/" + component
            guard mkdir(prefix, 0o755) == 0 else {
                guard errno == EEXIST else { throw Unsafe(description: "cannot make \(prefix): \(POSIXFiles.reason())") }
                continue
            }
            _ = chown(prefix, 0, 0)
            _ = chmod(prefix, 0o755)   // not the umask's
        }
    }
}
