import Domain
import FoundationEssentials
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// The local time zone, read from the tz database's files as the C
/// library reads them: `$TZ` (a zone name under /usr/share/zoneinfo, or
/// `$TZDIR`; `:NAME`; an absolute path; or a POSIX rule like
/// `CET-1CEST,M3.5.0,M10.5.0/3`), else /etc/localtime. When nothing is
/// readable it is UTC, with the reason for `doctor` to show.
public enum SystemTimeZone {
    /// The zone found and, if it fell back to UTC, why.
    public struct Lookup: Sendable {
        public var rules: TimeZoneRules
        /// Where the rules came from (`TZ=Europe/Berlin`, `/etc/localtime`).
        public var source: String
        /// Why the zone is UTC although the system asked for another; nil
        /// when the zone was read.
        public var problem: String?
    }

    /// The local zone of `environment` (its `TZ` and `TZDIR`), read now.
    public static func lookUp(environment: [String: String]) -> Lookup {
        let directory = environment["TZDIR"].flatMap { $0.hasPrefix("/") ? $0 : nil } ?? "/usr/share/zoneinfo"
        guard var name = environment["TZ"] else {
            if let rules = file("/etc/localtime", identifier: localIdentifier(directory)) {
                return Lookup(rules: rules, source: "/etc/localtime")
            }
            return Lookup(rules: .utc, source: "/etc/localtime",
                          problem: "/etc/localtime is missing or not a time-zone file; local times are UTC")
        }
        // An empty TZ is UTC, as for the C library.
        if name.isEmpty { return Lookup(rules: .utc, source: "TZ=") }
        if name.hasPrefix(":") { name.removeFirst() }
        if name.hasPrefix("/") {
            if let rules = file(name, identifier: identifier(ofPath: name, in: directory) ?? name) {
                return Lookup(rules: rules, source: "TZ=\(name)")
            }
        } else if !name.split(separator: "/").contains(".."), let rules = named(name, in: directory) {
            return Lookup(rules: rules, source: "TZ=\(name)")
        }
        if let rule = TZifFile.rule(name) {
            return Lookup(rules: TimeZoneRules(identifier: name, transitions: [], initial: rule.standard, rule: rule), source: "TZ=\(name)")
        }
        return Lookup(rules: .utc, source: "TZ=\(name)",
                      problem: "TZ=\(name) is neither a zone in \(directory) nor a POSIX TZ rule; local times are UTC")
    }

    /// The zone `identifier` (`Europe/Berlin`) of the tz database, or nil.
    public static func named(_ identifier: String, in directory: String = "/usr/share/zoneinfo") -> TimeZoneRules? {
        guard !identifier.isEmpty, !identifier.hasPrefix("/"), !identifier.split(separator: "/").contains("..") else { return nil }
        return file(directory + "/" + identifier, identifier: identifier)
    }

    /// The local zone of `environment` (this process's by default), looked
    /// up once per `TZ` and kept until `forget()`: log lines and commands
    /// ask for it often.
    public static func current(_ environment: [String: String] = processZoneVariables()) -> Lookup {
        let key = [environment["TZ"], environment["TZDIR"]]
        return cache.withLock { cached in
            if let cached, cached.key == key { return cached.found }
            let found = lookUp(environment: environment)
            cached = (key, found)
            return found
        }
    }

    /// Forgets the zone `current` kept: the system's zone changed.
    public static func forget() {
        cache.withLock { $0 = nil }
    }

    private static let cache = Mutex<(key: [String?], found: Lookup)?>(nil)

    /// This process's `TZ` and `TZDIR`, read with getenv: a log line asks
    /// for the zone, and copying the whole environment each time is waste.
    public static func processZoneVariables() -> [String: String] {
        var variables: [String: String] = [:]
        for name in ["TZ", "TZDIR"] {
            if let value = getenv(name) { variables[name] = String(cString: value) }
        }
        return variables
    }

    private static func file(_ path: String, identifier: String) -> TimeZoneRules? {
        contents(path).flatMap { TZifFile.rules($0, identifier: identifier) }
    }

    /// The largest zone file read: the tz database's are a few KiB, so a
    /// bigger file is no zone (`TZ` naming a 100 MB file cost 200 MB).
    static let largestFile = 1 << 20

    /// A regular file's bytes, links followed (/etc/localtime is one), if
    /// it is no larger than `largestFile`; never a device or a FIFO.
    private static func contents(_ path: String) -> [UInt8]? {
        let fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK)
        guard fd >= 0 else { return nil }
        defer { close(fd) }
        var info = stat()
        guard fstat(fd, &info) == 0, info.st_mode & S_IFMT == S_IFREG, Int(info.st_size) <= largestFile else { return nil }
        return try? POSIXFiles.readAll(fd, path: path, limit: largestFile)
    }

    /// The zone's name /etc/localtime links to (`Europe/Berlin`), else
    /// /etc/timezone's, else `localtime`.
    private static func localIdentifier(_ directory: String) -> String {
        if let target = try? FileManager.default.destinationOfSymbolicLink(atPath: "/etc/localtime"),
           let name = identifier(ofPath: target, in: directory) {
            return name
        }
        if let data = FileManager.default.contents(atPath: "/etc/timezone") {
            let name = String(decoding: data, as: UTF8.self).trimmed
            if !name.isEmpty, !name.contains(" ") { return name }
        }
        return "localtime"
    }

    /// `Europe/Berlin` for `/usr/share/zoneinfo/Europe/Berlin` (or
    /// `../usr/share/zoneinfo/...`, a link's relative target).
    private static func identifier(ofPath path: String, in directory: String) -> String? {
        for marker in [directory + "/", "/zoneinfo/"] {
            if let range = path.firstRange(of: marker) {
                let name = String(path[range.upperBound...])
                return name.hasPrefix("posix/") ? String(name.dropFirst(6)) : name.hasPrefix("right/") ? String(name.dropFirst(6)) : name
            }
        }
        return nil
    }
}
