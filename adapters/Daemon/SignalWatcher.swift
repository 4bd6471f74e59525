import Dispatch
import Domain
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// Signals as wake reasons: while started, each of its signals is ignored
/// by the process and posted to the mailbox by a dispatch source instead.
/// Stopping restores the default dispositions (children inherit ignored
/// ones, and a signal after the stop must end the process as usual).
public final class SignalWatcher: WakeWatcher {
    public let name = "signals"
    private let numbers: [Int32]
    private let sources = Mutex<[RunningSource]>([])

    public init(_ numbers: [Int32] = [SIGTERM, SIGINT, SIGHUP]) {
        self.numbers = numbers
    }

    deinit {
        let running = sources.withLock { $0 }
        running.forEach { $0.source.cancel() }
        if !running.isEmpty { for number in numbers { signal(number, SIG_DFL) } }
    }

    public func start(posting mailbox: WakeMailbox) throws {
        let started = numbers.map { number in
            signal(number, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: number, queue: .global())
            source.setEventHandler { mailbox.post(.signal(number)) }
            source.resume()
            return RunningSource(source: source)
        }
        sources.withLock { $0 += started }
    }

    public func stop() async {
        let running = sources.withLock { running in
            defer { running = [] }
            return running
        }
        for source in running { await source.cancel() }
        for number in numbers { signal(number, SIG_DFL) }
    }
}
