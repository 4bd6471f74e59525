import Dispatch
import Synchronization

/// Runs a one-shot command's jobs on the process's main thread, in the order
/// they are enqueued, so that a command needs no thread pool: starting the
/// global executor's worker threads and handing jobs between them cost about
/// a third of `retime status` (docs/performance.md, "Start-up"). Work that
/// wants parallelism asks for it explicitly (the history's segment decoding
/// runs on `globalConcurrentExecutor`).
final class MainThreadExecutor: TaskExecutor {
    private let jobs = Mutex<[UnownedJob]>([])
    private let available = DispatchSemaphore(value: 0)

    func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        jobs.withLock { $0.append(job) }
        available.signal()
    }

    /// Runs jobs as they come; the command ends the process with `exit`.
    func run() -> Never {
        while true {
            available.wait()
            let job = jobs.withLock { $0.removeFirst() }
            job.runSynchronously(on: asUnownedTaskExecutor())
        }
    }
}
