import Dispatch

/// Runs a task's jobs on a serial dispatch queue, whose thread is not one
/// of the few the cooperative pool has (as many as cores): for a service
/// whose loop blocks in `poll`, so that it never holds a thread the
/// group's own tasks need to pass on a signal (on a one-core machine the
/// pool has one).
final class QueueExecutor: TaskExecutor {
    private let queue: DispatchQueue

    init(label: String) {
        queue = DispatchQueue(label: label)
    }

    func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        queue.async { job.runSynchronously(on: self.asUnownedTaskExecutor()) }
    }
}
