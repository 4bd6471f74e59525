import CRetimeLinux
import Dispatch
import Domain
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// Signals as wake reasons, however the kernel delivers them. While
/// started, each of its signals runs a small C handler that writes the
/// signal's number to a pipe (the self-pipe trick), which works whichever
/// thread the kernel picks in a process with many threads; and a signalfd
/// yields those left pending because every thread blocks them (a process
/// started with them blocked), which no handler sees. Dispatch sources read
/// both and post to the mailbox. Stopping restores the default
/// dispositions (a signal after the stop ends the process as usual).
public final class SignalWatcher: WakeWatcher {
    public let name = "signals"
    private let numbers: [Int32]
    private let running = Mutex<[RunningSource]>([])

    public init(_ numbers: [Int32] = [SIGTERM, SIGINT, SIGHUP]) {
        self.numbers = numbers
    }

    deinit {
        let sources = running.withLock { $0 }
        guard !sources.isEmpty else { return }
        for number in numbers { retime_signal_restore(number) }
        sources.forEach { $0.cancelSoon() }
    }

    public func start(posting mailbox: WakeMailbox) throws {
        var fds: [Int32] = [0, 0]
        guard pipe(&fds) == 0 else { throw DaemonError.unavailable("pipe: \(POSIXFiles.reason())") }
        for fd in fds {
            _ = fcntl(fd, F_SETFD, FD_CLOEXEC)
            _ = fcntl(fd, F_SETFL, O_NONBLOCK)
        }
        let readEnd = fds[0], writeEnd = fds[1]
        let pending = numbers.withUnsafeBufferPointer { retime_signalfd($0.baseAddress, Int32($0.count)) }
        guard pending >= 0 else {
            [readEnd, writeEnd].forEach { close($0) }
            throw DaemonError.unavailable("signalfd: \(POSIXFiles.reason())")
        }
        let queue = DispatchQueue(label: "retime.watch.signals")
        let handled = Self.reader(readEnd, on: queue) {
            var byte: UInt8 = 0
            return read(readEnd, &byte, 1) == 1 ? Int32(byte) : nil
        } posting: { mailbox.post(.signal($0)) }
        let blocked = Self.reader(pending, on: queue) {
            let number = retime_signalfd_take(pending)
            return number > 0 ? number : nil
        } posting: { mailbox.post(.signal($0)) }
        running.withLock {
            $0 = [RunningSource(source: handled) { close(readEnd); close(writeEnd) }, RunningSource(source: blocked) { close(pending) }]
        }
        for number in numbers where retime_signal_forward(number, writeEnd) != 0 {
            throw DaemonError.unavailable("cannot handle signal \(number): \(POSIXFiles.reason())")
        }
    }

    /// A read source on `fd` that posts every signal `take` yields.
    private static func reader(_ fd: Int32, on queue: DispatchQueue, take: @escaping @Sendable () -> Int32?,
                               posting post: @escaping @Sendable (Int32) -> Void) -> any DispatchSourceRead {
        let source = DispatchSource.makeReadSource(fileDescriptor: fd, queue: queue)
        source.setEventHandler {
            while let number = take() { post(number) }
        }
        source.resume()
        return source
    }

    public func stop() async {
        let stopped = running.withLock { running in
            defer { running = [] }
            return running
        }
        guard !stopped.isEmpty else { return }
        for number in numbers { retime_signal_restore(number) }
        for source in stopped { await source.cancel() }
    }
}
