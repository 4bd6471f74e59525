@testable import RetimeCLI
import Foundation
import Synchronization
import Testing
#if canImport(Glibc)
import Glibc
#endif

/// The one lifecycle of the daemon and the system service: the group's
/// rules, with signals sent through an injected source (the end-to-end
/// suites send the real ones to the real processes).
@Suite("ServiceGroup: start in order, signals as a stream, stop in reverse with a deadline")
struct ServiceGroupTests {
    @Test("services start in order, each after the one before says it has started; one that returns stops the others, the last started first")
    func orderAndReverse() async throws {
        let log = Log()
        let group = ServiceGroup(services: [Holder("a", log), Holder("b", log), Once("c", log)], signals: ManualSignals())
        try await group.run()
        #expect(log.lines == ["a start", "a up", "b start", "b up", "c ran", "b stop", "a stop"])
    }

    @Test("a shutdown signal stops every service in reverse, each told which signal; a reload signal reaches the running services and stops none")
    func signalStream() async throws {
        let log = Log(), signals = ManualSignals()
        let group = ServiceGroup(services: [Holder("a", log), Waiter("b", log)], signals: signals)
        let running = Task { try await group.run() }
        #expect(await until { log.lines.contains("b waiting") })
        #expect(signals.caught == [SIGHUP, SIGINT, SIGTERM])
        signals.send(SIGHUP)
        #expect(await until { log.lines.contains("b reload") })
        signals.send(SIGINT)
        try await running.value
        #expect(log.lines == ["a start", "a up", "b waiting", "b reload", "b stop \(SIGINT)", "a stop"])
        #expect(signals.stopped)
    }

    @Test("a service that ignores its stop and its cancellation is left behind at the deadline; the services before it still stop, and run() names it")
    func deadline() async throws {
        let log = Log(), stubborn = Stubborn()
        let group = ServiceGroup(services: [Holder("a", log), stubborn], signals: ManualSignals(), deadline: .milliseconds(200))
        let running = Task { try await group.run() }
        #expect(await until { stubborn.running })
        running.cancel()
        let error = await #expect(throws: ServiceGroupError.self) { try await running.value }
        #expect(error?.description.contains("'stubborn' did not stop") == true)
        // The group returned while the service it left behind still runs.
        #expect(!stubborn.released)
        #expect(log.lines == ["a start", "a up", "a stop"])
        stubborn.release()
    }

    @Test("a service that fails stops the others in reverse; run() throws the first failure, not a later one")
    func failure() async throws {
        let log = Log()
        let group = ServiceGroup(services: [Holder("a", log, failsOnStop: true), Holder("b", log), Failing("c", log)], signals: ManualSignals())
        await #expect(throws: Boom.first) { try await group.run() }
        #expect(log.lines == ["a start", "a up", "b start", "b up", "c failed", "b stop", "a stop"])
    }

    @Test("a service that fails before it has started: nothing after it starts")
    func failsAtStart() async throws {
        let log = Log()
        let group = ServiceGroup(services: [Holder("a", log), Failing("b", log), Holder("c", log)], signals: ManualSignals())
        await #expect(throws: Boom.first) { try await group.run() }
        #expect(log.lines == ["a start", "a up", "b failed", "a stop"])
    }

    @Test("the process's signals come out of the stream (a real SIGUSR1 to this process, caught while the source runs)")
    func processSignals() async throws {
        let source = ProcessSignals()
        let stream = try source.start([SIGUSR1])
        kill(getpid(), SIGUSR1)
        var iterator = stream.makeAsyncIterator()
        #expect(await iterator.next() == SIGUSR1)
        await source.stop()
        #expect(await iterator.next() == nil)
    }
}

/// Signals a test sends by hand.
final class ManualSignals: SignalSource {
    private let state = Mutex<(continuation: AsyncStream<Int32>.Continuation?, caught: [Int32], stopped: Bool)>((nil, [], false))

    func start(_ numbers: [Int32]) throws -> AsyncStream<Int32> {
        let (stream, continuation) = AsyncStream.makeStream(of: Int32.self)
        state.withLock { $0 = (continuation, numbers, false) }
        return stream
    }

    func stop() async {
        state.withLock { state in
            state.continuation?.finish()
            state.stopped = true
        }
    }

    func send(_ number: Int32) { _ = state.withLock { $0.continuation?.yield(number) } }
    var caught: [Int32] { state.withLock { $0.caught } }
    var stopped: Bool { state.withLock { $0.stopped } }
}

/// Polls `condition` until it holds, at most 60,000 times 5 ms apart.
/// Counted in looks, not in wall-clock time (as `DaemonPresenceTests`):
/// the parallel suite keeps the cooperative threads busy with blocking
/// work for long spells, once for more than the 5 minutes a deadline
/// allowed, and the group's tasks had no turn in all that time; a look
/// only counts when this task had a turn, as theirs could too.
private func until(_ condition: () -> Bool) async -> Bool {
    for _ in 0..<60_000 {
        if condition() { return true }
        try? await Task.sleep(for: .milliseconds(5))
    }
    return condition()
}

private final class Log: Sendable {
    private let entries = Mutex<[String]>([])
    func add(_ line: String) { entries.withLock { $0.append(line) } }
    var lines: [String] { entries.withLock { $0 } }
}

private enum Boom: Error { case first, second }

/// Holds something: up at start, let go when asked to stop.
private struct Holder: Service {
    let name: String
    let log: Log
    var failsOnStop = false
    init(_ name: String, _ log: Log, failsOnStop: Bool = false) {
        self.name = name
        self.log = log
        self.failsOnStop = failsOnStop
    }
    var announcesStart: Bool { true }
    func run() async throws {
        log.add("\(name) start")
        log.add("\(name) up")
        ServiceLifecycle.started()
        await ServiceLifecycle.shutdownRequested()
        log.add("\(name) stop")
        if failsOnStop { throw Boom.second }
    }
}

/// Does its work and returns.
private struct Once: Service {
    let name: String
    let log: Log
    init(_ name: String, _ log: Log) { (self.name, self.log) = (name, log) }
    func run() async throws { log.add("\(name) ran") }
}

private struct Failing: Service {
    let name: String
    let log: Log
    init(_ name: String, _ log: Log) { (self.name, self.log) = (name, log) }
    var announcesStart: Bool { true }
    func run() async throws {
        log.add("\(name) failed")
        throw Boom.first
    }
}

/// Waits to be stopped, noting reloads and the signal that stopped it.
private struct Waiter: Service {
    let name: String
    let log: Log
    init(_ name: String, _ log: Log) { (self.name, self.log) = (name, log) }
    func run() async throws {
        let stopped = Mutex<Int32??>(nil)
        let name = name, log = log
        await ServiceLifecycle.withHandlers(onShutdown: { signal in stopped.withLock { $0 = .some(signal) } },
                                            onReload: { log.add("\(name) reload") }) {
            log.add("\(name) waiting")
            await ServiceLifecycle.shutdownRequested()
        }
        log.add("\(name) stop \(stopped.withLock { $0 }.flatMap { $0 }.map(String.init) ?? "-")")
    }
}

/// Ignores both its stop and its cancellation until the test lets it go.
private final class Stubborn: Service {
    let name = "stubborn"
    private let state = Mutex<(running: Bool, waiting: CheckedContinuation<Void, Never>?, released: Bool)>((false, nil, false))
    var running: Bool { state.withLock { $0.running } }
    var released: Bool { state.withLock { $0.released } }

    func run() async throws {
        await withCheckedContinuation { continuation in
            let released = state.withLock { state in
                state.running = true
                state.waiting = continuation
                return state.released
            }
            if released { release() }
        }
    }

    func release() {
        let waiting = state.withLock { state in
            state.released = true
            defer { state.waiting = nil }
            return state.waiting
        }
        waiting?.resume()
    }
}
