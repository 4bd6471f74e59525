import CRetimeLinux
import FoundationEssentials
#if canImport(Glibc)
import Glibc
#endif

/// The kernel's process events (the netlink proc connector): which process
/// exec'd, renamed itself, or was forked from which (`retime_proc_events_*`).
enum ProcessEvents {
    enum Kind { case exec, comm, fork }
    struct Event: Equatable {
        var kind: Kind
        var pid: Int32
        /// The forking process, for a fork.
        var parent: Int32
    }
    struct Batch {
        var events: [Event]
        /// The kernel dropped events: every process must be looked at.
        var overflowed: Bool
        /// More are queued than one batch holds.
        var more: Bool
    }
    static let batchSize = 1_024

    /// A subscribed socket, or -1 with errno set.
    static func open() -> Int32 { retime_proc_events_open() }

    static func read(_ fd: Int32) -> Batch {
        var raw = [retime_proc_event](repeating: retime_proc_event(), count: batchSize)
        var overflowed: Int32 = 0
        let count = Int(retime_proc_events_read(fd, &raw, Int32(raw.count), &overflowed))
        let events = raw[..<count].compactMap { event -> Event? in
            switch Int(event.kind) {
            case Int(RETIME_PROC_EXEC): return Event(kind: .exec, pid: event.pid, parent: 0)
            case Int(RETIME_PROC_COMM): return Event(kind: .comm, pid: event.pid, parent: 0)
            case Int(RETIME_PROC_FORK): return Event(kind: .fork, pid: event.pid, parent: event.parent)
            default: return nil
            }
        }
        return Batch(events: events, overflowed: overflowed != 0, more: count + 64 > batchSize)
    }

    /// Whether process events reach this process: subscribes, starts
    /// `/bin/true`, and waits up to a second for its exec to be reported.
    /// The kernel sends them only to its initial network, user and PID
    /// namespaces, and to root.
    static func probe() -> (works: Bool, reason: String) {
        let fd = open()
        guard fd >= 0 else {
            // The connector answers only in the initial network namespace.
            let why = errno == ECONNREFUSED ? "the service runs in a network namespace of its own" : POSIXFiles.reason()
            return (false, "no kernel process events (\(why)); /proc is read every 2 s")
        }
        defer { close(fd) }
        let truth = FileManager.default.isExecutableFile(atPath: "/bin/true") ? "/bin/true" : "/usr/bin/true"
        guard let probe = try? ChildProcess.start([truth], environment: [:]) else {
            return (false, "process events could not be tested; /proc is read every 2 s")
        }
        let child = probe.pid
        let deadline = Date().addingTimeInterval(1)
        while Date() < deadline {
            var descriptor = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
            _ = poll(&descriptor, 1, Int32(max(1, deadline.timeIntervalSinceNow * 1_000)))
            if read(fd).events.contains(where: { $0.kind == .exec && $0.pid == child }) {
                _ = probe.wait()
                return (true, "terminates blocked apps as they start or fork (kernel process events)")
            }
        }
        _ = probe.wait()
        return (false, "the kernel's process events do not reach the service (another namespace); /proc is read every 2 s")
    }
}
