#if os(Linux)
import CRetimeBus
import Dispatch
import FoundationEssentials
import Synchronization
import Glibc

/// Why a bus could not be reached (for the log and `doctor`).
public struct BusError: Error, CustomStringConvertible, Sendable {
    public let description: String
    public init(_ description: String) { self.description = description }
}

/// One sd-bus connection and the thread that owns it. sd-bus is not
/// thread-safe: every use of the connection (its objects' callbacks,
/// signals, sends) happens on that thread; other threads hand it work
/// with `perform`, which wakes its poll through a pipe.
public final class BusConnection: @unchecked Sendable {
    /// Which bus: the user's session bus (`DBUS_SESSION_BUS_ADDRESS`, else
    /// `$XDG_RUNTIME_DIR/bus`) or the system bus (`DBUS_SYSTEM_BUS_ADDRESS`,
    /// else /run/dbus/system_bus_socket).
    public enum Kind: Sendable { case session, system }

    let bus: UnsafeMutableRawPointer
    private let wake: WakePipe
    /// Work for the thread; `closed` once its loop has ended (nothing runs after).
    /// `lostBus`: the loop ended on its own, not by `close`.
    private let pending = Mutex<(work: [@Sendable (BusConnection) -> Void], stopping: Bool, closed: Bool, lostBus: Bool)>(([], false, false, false))
    private let finished = DispatchSemaphore(value: 0)
    /// Whether `close` has run (the loop's own end does not free the connection).
    private let released = Mutex(false)
    /// Called once, on the connection's thread, if the bus goes away under
    /// it (its daemon killed, the socket closed): not after `close`.
    private let lost = Mutex<(@Sendable () -> Void)?>(nil)
    /// What the connection's callbacks reach; kept alive as long as it.
    /// Only the connection's thread (and `close`, after it) touches it.
    nonisolated(unsafe) private var retained: [AnyObject] = []

    /// Connects (the caller's thread; a handful of round trips) and starts
    /// the connection's thread. The bus's address is `environment`'s
    /// (`DBUS_SESSION_BUS_ADDRESS`, `DBUS_SYSTEM_BUS_ADDRESS`) when it
    /// names one, else sd-bus's default for the kind.
    public init(_ kind: Kind, environment: [String: String] = [:]) throws(BusError) {
        var why = [CChar](repeating: 0, count: 256)
        guard rb_load(&why, why.count) == 0 else {
            throw BusError("libsystemd cannot be opened (" + String(decoding: why.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self) + ")")
        }
        var raw: UnsafeMutableRawPointer?
        let variable = kind == .system ? "DBUS_SYSTEM_BUS_ADDRESS" : "DBUS_SESSION_BUS_ADDRESS"
        let opened = if let address = environment[variable], !address.isEmpty {
            rb_open_address(address, &raw)
        } else {
            rb_open(kind == .system ? 1 : 0, &raw)
        }
        guard opened >= 0, let raw else {
            throw BusError("the \(kind == .system ? "system" : "session") bus cannot be reached (\(String(cString: strerror(-opened))))")
        }
        do {
            wake = try WakePipe { BusError("no pipe for the bus thread (\($0))") }
        } catch {
            rb_close(raw)
            throw error
        }
        bus = raw
        let queue = DispatchQueue(label: "retime.bus")
        queue.async { [self] in loop() }
    }

    /// Runs `work` on the connection's thread, soon; false (and never
    /// runs it) once the connection has closed.
    @discardableResult
    public func perform(_ work: @escaping @Sendable (BusConnection) -> Void) -> Bool {
        let queued = pending.withLock { state -> Bool in
            guard !state.closed else { return false }
            state.work.append(work)
            return true
        }
        guard queued else { return false }
        wake.wake()
        return true
    }

    /// Whether the connection's thread has ended (closed, or the bus lost).
    public var isClosed: Bool { pending.withLock { $0.closed } }

    /// Sets what is called once if the bus goes away under the connection
    /// (the user's log, say); called at once if it already has.
    public func onLost(_ handler: @escaping @Sendable () -> Void) {
        let already = pending.withLock { state -> Bool in
            if !state.closed { lost.withLock { $0 = handler } }
            return state.closed && state.lostBus
        }
        if already { handler() }
    }

    /// Keeps `object` alive as long as the connection (a callback's context).
    /// On the connection's thread only.
    func retain(_ object: AnyObject) {
        retained.append(object)
    }

    /// Stops the thread, flushes what is queued, and closes the connection
    /// (also after the bus was lost: its sd-bus object and pipe are freed
    /// only here). Once; never on the connection's thread.
    public func close() {
        let first = released.withLock { released -> Bool in
            defer { released = true }
            return !released
        }
        guard first else { return }
        pending.withLock { $0.stopping = true }
        wake.wake()
        finished.wait()
        rb_close(bus)
        wake.close()
        retained.removeAll()
    }

    private func loop() {
        while true {
            // Everything sd-bus has read or can do now, then what others queued.
            var processed = rb_process(bus)
            while processed > 0 { processed = rb_process(bus) }
            // The bus gone (its daemon ended: ECONNRESET, ENOTCONN, ...):
            // sd-bus has closed the connection, whose fd poll would then
            // ignore; the loop ends here, not in a wait on the wake pipe alone.
            if processed < 0 { break }
            let (work, stopping) = pending.withLock { state in
                defer { state.work.removeAll() }
                return (state.work, state.stopping)
            }
            for item in work { item(self) }
            if stopping { break }
            if !work.isEmpty { continue }
            var fds = [pollfd(fd: rb_fd(bus), events: Int16(truncatingIfNeeded: rb_events(bus)), revents: 0),
                       wake.pollRead]
            let result = poll(&fds, 2, Self.milliseconds(until: rb_timeout(bus)))
            if result < 0, errno != EINTR { break }
            if fds[0].revents & Int16(POLLHUP | POLLERR) != 0, rb_process(bus) < 0 { break }
            if fds[1].revents & Int16(POLLIN) != 0 { wake.drain() }
        }
        // A closed bus (the daemon of the bus went away) ends the loop
        // early: what was queued runs (its calls fail), later `perform`s are refused.
        let (left, byItself) = pending.withLock { state in
            defer { (state.work, state.stopping, state.closed, state.lostBus) = ([], true, true, !state.stopping) }
            return (state.work, !state.stopping)
        }
        for item in left { item(self) }
        if byItself, let handler = lost.withLock({ $0 }) { handler() }
        finished.signal()
    }

    /// poll's timeout for sd-bus's absolute CLOCK_MONOTONIC deadline.
    private static func milliseconds(until deadline: UInt64) -> Int32 {
        guard deadline != UInt64.max else { return -1 }
        var now = timespec()
        clock_gettime(CLOCK_MONOTONIC, &now)
        let current = UInt64(now.tv_sec) * 1_000_000 + UInt64(now.tv_nsec) / 1000
        guard deadline > current else { return 0 }
        return Int32(clamping: (deadline - current + 999) / 1000)
    }
}
#endif
