#if os(Linux)
import CRetimeLinux
import Dispatch
import FoundationEssentials
import Synchronization
import Glibc

/// Where the user's compositor listens, and a wait for it to start there.
///
/// A user daemon usually starts with the login, before the graphical
/// session: its environment then has `XDG_RUNTIME_DIR` but no
/// `WAYLAND_DISPLAY` (the desktop gives that to the user manager later, for
/// services started after it). So with no display named, the compositor is
/// the one listening in the user's own runtime folder (`wayland-N`, the
/// lowest N when a nested one runs too), and a daemon that found none waits
/// for one to create its socket there, on inotify: no CPU while it waits.
struct WaylandDisplay: Sendable {
    /// The folder the socket is in.
    let directory: String
    /// The socket's name in it, or nil for whichever `wayland-N` is there.
    let name: String?

    /// What `environment` names: `$WAYLAND_DISPLAY` (a path, or a name
    /// under `$XDG_RUNTIME_DIR`), else any compositor in `$XDG_RUNTIME_DIR`.
    init(_ environment: [String: String]) throws(WaylandIdleError) {
        let runtime = environment["XDG_RUNTIME_DIR"].flatMap { $0.isEmpty ? nil : $0 }
        guard let display = environment["WAYLAND_DISPLAY"], !display.isEmpty else {
            guard let runtime else { throw WaylandIdleError("no Wayland display (WAYLAND_DISPLAY and XDG_RUNTIME_DIR are not set)") }
            (directory, name) = (runtime, nil)
            return
        }
        if display.hasPrefix("/") {
            let slash = display.lastIndex(of: "/")!
            (directory, name) = (slash == display.startIndex ? "/" : String(display[..<slash]), String(display[display.index(after: slash)...]))
            return
        }
        guard let runtime else { throw WaylandIdleError("WAYLAND_DISPLAY is \(display) but XDG_RUNTIME_DIR is not set") }
        (directory, name) = (runtime, display)
    }

    /// The path a named display has, whether or not anything listens there.
    var namedPath: String? { name.map { directory == "/" ? "/" + $0 : directory + "/" + $0 } }

    /// How `doctor` names where a compositor is waited for.
    var awaited: String { namedPath ?? directory + "/wayland-N" }

    /// The socket of a compositor that answers now, if any.
    func answering() -> String? {
        candidates().first(where: Self.answers)
    }

    /// The sockets there that could be the compositor's, best first: the
    /// named one, else every `wayland-N` by N. Only sockets: any other file
    /// of that name is no compositor, and is never retried.
    func candidates() -> [String] {
        if let namedPath { return Self.isSocket(namedPath) ? [namedPath] : [] }
        let names = (try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? []
        let numbered = names.compactMap { name -> (Int, String)? in
            guard name.hasPrefix("wayland-"), let number = Int(name.dropFirst("wayland-".count)) else { return nil }
            return (number, name)
        }
        return numbered.sorted { $0.0 < $1.0 }.map { directory + "/" + $0.1 }.filter(Self.isSocket)
    }

    static func isSocket(_ path: String) -> Bool {
        var info = stat()
        return lstat(path, &info) == 0 && info.st_mode & S_IFMT == S_IFSOCK
    }

    /// Whether the folder exists to be watched.
    var watchable: Bool {
        var info = stat()
        return stat(directory, &info) == 0 && info.st_mode & S_IFMT == S_IFDIR
    }

    /// Whether something accepts a connection at `path` (a compositor that
    /// crashed leaves its socket behind, refusing).
    static func answers(_ path: String) -> Bool {
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        let bytes = Array(path.utf8)
        guard bytes.count < MemoryLayout.size(ofValue: address.sun_path) else { return false }
        withUnsafeMutableBytes(of: &address.sun_path) { raw in
            raw.copyBytes(from: bytes)
            raw[bytes.count] = 0
        }
        let fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { return false }
        defer { close(fd) }
        return withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) == 0 }
        }
    }
}

/// A wait, on a thread of its own, for a compositor to answer at a
/// `WaylandDisplay`: the folder watched with inotify, looked at again when
/// a file named as the compositor's socket is made or moved into it.
/// `stop` ends it through a pipe.
final class WaylandDisplayWait: Sendable {
    private let display: WaylandDisplay
    private let inotify: Int32
    private let wake: WakePipe
    private let state = Mutex<(stopping: Bool, closed: Bool)>((false, false))

    init(_ display: WaylandDisplay) throws(WaylandIdleError) {
        let inotify = retime_inotify_create()
        guard inotify >= 0, retime_inotify_watch_new(inotify, display.directory) >= 0 else {
            let why = String(cString: strerror(errno))
            if inotify >= 0 { close(inotify) }
            throw WaylandIdleError("\(display.directory) cannot be watched for a compositor (\(why))")
        }
        do {
            wake = try WakePipe { WaylandIdleError("no pipe for the compositor's wait (\($0))") }
        } catch {
            close(inotify)
            throw error
        }
        self.display = display
        self.inotify = inotify
    }

    /// Waits until `found(path)` takes a compositor that answers (it
    /// returns true), or `stop`; then closes what it opened.
    func start(_ found: @escaping @Sendable (String) -> Bool) {
        DispatchQueue(label: "retime.wayland-display").async { [self] in
            loop(found)
            state.withLock { state in
                state.closed = true
                close(inotify)
                wake.close()
            }
        }
    }

    /// Ends the wait soon; a second call, or one after it found, does nothing.
    func stop() {
        state.withLock { state in
            guard !state.stopping, !state.closed else { return }
            state.stopping = true
            wake.wake()
        }
    }

    private func loop(_ found: (String) -> Bool) {
        var buffer = [UInt8](repeating: 0, count: 4_096)
        // Looked at once before the first event: it may have come up
        // between the caller's look and the watch.
        var look = true
        // The folder is shared with every other program of the user's
        // session: only a file named as a compositor's socket (or its lock)
        // is worth a look.
        let prefix = display.name ?? "wayland-"
        while !state.withLock({ $0.stopping }) {
            if look, let path = answeringSoon(), found(path) { return }
            var fds = [pollfd(fd: inotify, events: Int16(POLLIN), revents: 0), wake.pollRead]
            let polled = poll(&fds, 2, -1)
            if polled < 0, errno != EINTR { return }
            if fds[0].revents & Int16(POLLERR | POLLHUP | POLLNVAL) != 0 { return }
            look = false
            while case let count = read(inotify, &buffer, buffer.count), count > 0 {
                if retime_inotify_names_starting(buffer, count, prefix) != 0 { look = true }
            }
        }
    }

    /// A compositor binds its socket before it listens on it: a socket
    /// just made may not answer yet, so it is tried every 10 ms for up to a
    /// second before the wait goes on. No socket there (only its lock file
    /// yet, or none): nothing to try, the socket's own event comes next.
    private func answeringSoon() -> String? {
        for _ in 0..<100 {
            let candidates = display.candidates()
            if candidates.isEmpty { return nil }
            if let path = candidates.first(where: WaylandDisplay.answers) { return path }
            if state.withLock({ $0.stopping }) { return nil }
            usleep(10_000)
        }
        return nil
    }
}
#endif
