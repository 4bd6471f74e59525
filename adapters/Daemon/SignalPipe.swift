import Dispatch
import Domain
#if canImport(Glibc)
import Glibc
#endif

/// Signals as bytes on a pipe, so a `poll` that waits for other descriptors
/// wakes for them too: each signal's number is written to the pipe by a
/// dispatch source, the signal itself being ignored. Restores the default
/// dispositions when released (children inherit ignored ones).
final class SignalPipe: @unchecked Sendable {
    /// The end to poll for `POLLIN` and read a byte (a signal number) from.
    let descriptor: Int32
    private let writeEnd: Int32
    private let numbers: [Int32]
    private let sources: [any DispatchSourceSignal]

    init(_ numbers: [Int32]) throws {
        var fds: [Int32] = [0, 0]
        guard pipe(&fds) == 0 else { throw DaemonError.unavailable("pipe: \(POSIXFiles.reason())") }
        for fd in fds { _ = fcntl(fd, F_SETFD, FD_CLOEXEC) }
        _ = fcntl(fds[1], F_SETFL, O_NONBLOCK)
        descriptor = fds[0]
        writeEnd = fds[1]
        self.numbers = numbers
        let end = fds[1]
        sources = numbers.map { number in
            signal(number, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: number, queue: .global())
            source.setEventHandler {
                var byte = UInt8(number)
                _ = write(end, &byte, 1)
            }
            source.resume()
            return source
        }
    }

    /// The signal that woke the reader, if a byte is there.
    func take() -> Int32? {
        var byte: UInt8 = 0
        return read(descriptor, &byte, 1) == 1 ? Int32(byte) : nil
    }

    deinit {
        sources.forEach { $0.cancel() }
        for number in numbers { signal(number, SIG_DFL) }
        close(descriptor)
        close(writeEnd)
    }
}
