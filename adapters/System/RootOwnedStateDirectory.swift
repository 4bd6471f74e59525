import FoundationEssentials
#if canImport(Glibc)
import Glibc
#endif

/// The system service's state directory is trusted only when no one but
/// root could have put or swapped a file in it: it is root's and writable by
/// root alone, and so is every directory above it, except that a sticky
/// directory (`/tmp`) may be writable by all, since only an entry's owner
/// (here root) may rename or remove it there. A directory another user owns
/// could hold a `blocks.json` of that user's making, or a FIFO the service
/// would wait on.
public enum RootOwnedStateDirectory {
    /// Why `path` may not hold the service's state, in words; nil when it
    /// may. A directory not made yet is judged by the one it would be made in.
    public static func problem(_ path: String) -> String? {
        var existing = path
        while access(existing, F_OK) != 0, existing != "/", !existing.isEmpty { existing = POSIXFiles.parentDirectory(of: existing) }
        guard let resolved = realpath(existing.isEmpty ? "/" : existing, nil) else {
            return "\(existing) cannot be resolved: \(String(cString: strerror(errno)))"
        }
        let real = String(cString: resolved)
        free(resolved)
        let components = real.split(separator: "/")
        let chain = ["/"] + components.indices.map { "/" + components[...$0].joined(separator: "/") }
        for (index, directory) in chain.enumerated() {
            var info = stat()
            guard lstat(directory, &info) == 0 else { return "\(directory) cannot be read: \(String(cString: strerror(errno)))" }
            let isStateDirectory = existing == path && index == chain.count - 1
            guard info.st_mode & S_IFMT == S_IFDIR else { return "\(directory) is not a directory" }
            if info.st_uid != 0 { return "\(directory) belongs to uid \(info.st_uid), not root" }
            let sticky = info.st_mode & S_ISVTX != 0
            if info.st_mode & 0o022 != 0, isStateDirectory || !sticky {
                return "\(directory) may be written by users other than root (mode \(String(info.st_mode & 0o7777, radix: 8)))"
            }
        }
        return nil
    }
}
