import FoundationEssentials
#if canImport(Glibc)
import Glibc
#endif

/// Runs a long-running process's services, in the shape of
/// swift-service-lifecycle's `ServiceGroup`: each started in order (the
/// next once the one before says it has started, if it says so), the
/// signals caught as a stream (a shutdown signal stops the group, a reload
/// signal is passed on to the services), and, once a service returns or
/// fails, a shutdown signal comes or the caller's task is cancelled, every
/// started service asked to stop in reverse order, each given `deadline`
/// before it is cancelled and left behind. The first failure is what
/// `run()` throws. The daemon and the system service are each one.
struct ServiceGroup: Sendable {
    let services: [any Service]
    var signals: any SignalSource
    var shutdownSignals: Set<Int32> = [SIGTERM, SIGINT]
    /// Caught and passed on as a reload; a root with nothing to reload
    /// lists it anyway when it must not die of it.
    var reloadSignals: Set<Int32> = [SIGHUP]
    /// How long each service has to stop once asked.
    var deadline: Duration = .seconds(10)

    func run() async throws {
        let (events, sink) = AsyncStream.makeStream(of: GroupEvent.self)
        let caught = try signals.start((shutdownSignals.union(reloadSignals)).sorted())
        let forwarding = Task { for await number in caught { sink.yield(.signal(number)) } }
        let run = GroupRun(services: services, sink: sink, shutdownSignals: shutdownSignals, reloadSignals: reloadSignals)
        let deadline = deadline
        // Not a child of the caller's task: a cancelled task's stream
        // iteration ends at once, and the group must still stop its
        // services in order. The caller's cancellation is an event instead.
        let body = Task {
            var run = run
            var pending = events.makeAsyncIterator()
            await run.start(&pending)
            await run.stop(&pending, deadline: deadline)
            return run.failure
        }
        let failure = await withTaskCancellationHandler { await body.value } onCancel: { sink.yield(.cancelled) }
        forwarding.cancel()
        await signals.stop()
        sink.finish()
        if let failure { throw failure }
    }
}

/// One run of a group: the services' handles and tasks, which have
/// finished, and the first failure.
private struct GroupRun: Sendable {
    let services: [any Service]
    let sink: AsyncStream<GroupEvent>.Continuation
    let shutdownSignals: Set<Int32>
    let reloadSignals: Set<Int32>
    var handles: [ServiceHandle] = []
    var tasks: [Task<Void, Never>] = []
    var finished = Set<Int>()
    var failure: (any Error)?
    /// The shutdown signal that ended the group, if one did.
    var stopSignal: Int32?

    /// Starts the services in order; returns when one of them ended, a
    /// shutdown signal came or the group was cancelled.
    mutating func start(_ events: inout AsyncStream<GroupEvent>.Iterator) async {
        for (index, service) in services.enumerated() {
            let handle = ServiceHandle(index: index, events: sink)
            handles.append(handle)
            let sink = sink
            tasks.append(Task {
                await ServiceLifecycle.$handle.withValue(handle) {
                    do {
                        try await service.run()
                        sink.yield(.finished(index, nil))
                    } catch {
                        sink.yield(.finished(index, error))
                    }
                }
            })
            guard service.announcesStart else { continue }
            var up = false
            while !up, let event = await events.next() {
                if case .started(index) = event { up = true } else if apply(event) { return }
            }
        }
        while let event = await events.next() {
            if apply(event) { return }
        }
    }

    /// Takes one event while the group runs; true when it is to stop.
    mutating func apply(_ event: GroupEvent) -> Bool {
        switch event {
        case .started, .deadline:
            return false
        case .finished(let index, let error):
            finished.insert(index)
            if let error, failure == nil { failure = error }
            return true
        case .signal(let number) where shutdownSignals.contains(number):
            stopSignal = number
            return true
        case .signal(let number):
            if reloadSignals.contains(number) { handles.indices.filter { !finished.contains($0) }.forEach { handles[$0].reload() } }
            return false
        case .cancelled:
            return true
        }
    }

    /// Asks every started service still running to stop, the last started
    /// first, waiting for each up to `deadline`.
    mutating func stop(_ events: inout AsyncStream<GroupEvent>.Iterator, deadline: Duration) async {
        for index in handles.indices.reversed() where !finished.contains(index) {
            handles[index].requestShutdown(signal: stopSignal)
            let sink = sink
            let timer = Task {
                do { try await Task.sleep(for: deadline) } catch { return }
                sink.yield(.deadline(index))
            }
            waiting: while let event = await events.next() {
                switch event {
                case .finished(let ended, let error):
                    finished.insert(ended)
                    if let error, failure == nil { failure = error }
                    if ended == index { break waiting }
                case .deadline(index):
                    tasks[index].cancel()
                    if failure == nil { failure = ServiceGroupError.shutdownTimedOut(services[index].name, after: deadline) }
                    break waiting
                default:
                    continue
                }
            }
            timer.cancel()
        }
    }
}
