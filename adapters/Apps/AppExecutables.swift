import FoundationEssentials
#if canImport(Glibc)
import Glibc
#endif

/// The executables an `app:NAME` names: the file NAME is in the directories
/// a user's programs are run from, through symlinks (`python3` is
/// `/usr/bin/python3.11`). A process running one of them is the app, under
/// whatever name it runs (a hard link, `exec -a`, the real file's name).
///
/// A launcher that runs many programs under other names is not the app:
/// where the file a symlink leads to has a name that does not begin with
/// NAME (`/snap/bin/firefox` is `/usr/bin/snap`, busybox's applets are
/// `busybox`), or the file has more than `maximumLinks` names (busybox's
/// hard-linked applets), it is left to the name match, so blocking one app
/// never ends every program the launcher runs.
enum AppExecutables {
    static let directories = ["/usr/local/sbin", "/usr/local/bin", "/usr/sbin", "/usr/bin", "/sbin", "/bin",
                              "/usr/local/games", "/usr/games", "/snap/bin"]
    static let maximumLinks = 16

    /// The identities `name` resolves to in `directories` (tried as written
    /// and in lower case).
    static func identities(of name: String, in directories: [String] = directories) -> Set<ExecutableIdentity> {
        guard !name.isEmpty, !name.contains("/"), name != ".", name != ".." else { return [] }
        var found: Set<ExecutableIdentity> = []
        for directory in directories {
            for spelling in Set([name, name.lowercased()]) {
                let path = directory + "/" + spelling
                guard let real = realPath(path), let identity = ExecutableIdentity.of(path: real),
                      access(real, X_OK) == 0 else { continue }
                let realName = String(real.split(separator: "/").last ?? "").lowercased()
                guard realName.hasPrefix(name.lowercased()), ExecutableIdentity.links(real) <= maximumLinks else { continue }
                found.insert(identity)
            }
        }
        return found
    }

    private static func realPath(_ path: String) -> String? {
        guard let resolved = realpath(path, nil) else { return nil }
        defer { free(resolved) }
        return String(cString: resolved)
    }
}
