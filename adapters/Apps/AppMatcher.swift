#if canImport(Glibc)
import Glibc
#endif

/// Which processes are a blocked app, for the users whose blocks name apps:
/// a process of theirs (its real uid) that runs one of the executables an
/// `app:NAME` resolves to (`AppExecutables`), under any name, or whose name
/// (the kernel's `comm`, or the file `/proc/PID/exe` runs) is NAME, without
/// case. Never the service's own executable; a process named `retime` is
/// matched only by a blocked app's executable (`app:retime` names no app,
/// so no block locks a user out of `retime stop`, whichever build they run).
struct AppMatcher: Equatable, Sendable {
    /// retime's own name, which no block terminates.
    static let ownName = "retime"

    /// Blocked names (lowercased) by uid.
    private(set) var names: [UInt32: Set<String>] = [:]
    /// The executables those names resolve to, by uid, each with its name.
    private(set) var identities: [UInt32: [ExecutableIdentity: String]] = [:]
    private var anyName: Set<String> = []
    private var anyIdentity: Set<ExecutableIdentity> = []
    private let own: ExecutableIdentity?
    private let ownPath: String?

    init(own: ExecutableIdentity? = nil, ownPath: String? = nil) {
        self.own = own
        self.ownPath = ownPath
    }

    /// The apps each user blocks, resolved to their executables now.
    init(apps: [UInt32: Set<String>], own: ExecutableIdentity?, ownPath: String?,
         directories: [String] = AppExecutables.directories) {
        self.init(own: own, ownPath: ownPath)
        for (uid, apps) in apps {
            for app in apps {
                let name = app.lowercased()
                names[uid, default: []].insert(name)
                anyName.insert(name)
                guard name != Self.ownName else { continue }
                for identity in AppExecutables.identities(of: app, in: directories) where identity != own {
                    identities[uid, default: [:]][identity] = name
                    anyIdentity.insert(identity)
                }
            }
        }
    }

    var isEmpty: Bool { names.isEmpty }
    var users: Int { names.count }

    /// The blocked app `entry` is, if it is a blocking user's process.
    func match(_ entry: ProcessTable.Entry) -> String? {
        guard entry.pid != getpid(), let names = names[entry.uid], !isService(entry) else { return nil }
        if let identity = entry.identity, let app = identities[entry.uid]?[identity] { return app }
        let comm = entry.comm.lowercased()
        let file = entry.executable.map { String($0.split(separator: "/").last ?? "").lowercased() }
        // The kernel keeps 15 bytes of a name.
        return names.first { $0 != Self.ownName && ($0 == file || $0 == comm || (comm.utf8.count == 15 && $0.utf8.starts(with: comm.utf8))) }
    }

    /// Whether a process might be some user's blocked app, by what it runs
    /// and is called alone (`ProcessTable.glance`): `match` decides.
    func mayMatch(_ glance: ProcessTable.Entry) -> Bool {
        if let identity = glance.identity, anyIdentity.contains(identity) { return true }
        let comm = glance.comm.lowercased()
        if anyName.contains(comm) { return true }
        if comm.utf8.count == 15, anyName.contains(where: { $0.utf8.starts(with: comm.utf8) }) { return true }
        let file = glance.executable.map { String($0.split(separator: "/").last ?? "").lowercased() }
        return file.map(anyName.contains) ?? false
    }

    /// A process left alone even inside a blocked app's tree: the service,
    /// and anything by retime's name (the user's way to the service).
    func spared(_ entry: ProcessTable.Entry) -> Bool {
        guard !isService(entry), entry.pid != getpid() else { return true }
        let file = entry.executable.map { String($0.split(separator: "/").last ?? "").lowercased() }
        return entry.comm.lowercased() == Self.ownName || file == Self.ownName
    }

    private func isService(_ entry: ProcessTable.Entry) -> Bool {
        (own != nil && entry.identity == own) || (ownPath != nil && entry.executable == ownPath)
    }
}
