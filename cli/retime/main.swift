import FoundationEssentials
import RetimeCLI
#if canImport(Glibc)
import Glibc
#endif

// The one-shot CLI's entry point: real process I/O around RetimeCLI.run.

/// Writes all of `text` to a descriptor, retrying short writes.
@Sendable func writeAll(_ fd: Int32, _ text: String) {
    var text = text
    text.withUTF8 { bytes in
        var offset = 0
        while offset < bytes.count {
            let written = write(fd, bytes.baseAddress! + offset, bytes.count - offset)
            if written < 0 { if errno == EINTR { continue } else { return } }
            offset += written
        }
    }
}

/// The environment, read from `environ` (the first of repeated names wins,
/// as for getenv). ProcessInfo's copy costs a third of a millisecond of
/// start-up here, more than a whole `retime status` should.
func processEnvironment() -> [String: String] {
    var count = 0
    while environ[count] != nil { count += 1 }
    // Each name and value made once from its bytes (not the whole entry
    // copied, then each half again), into a table sized once; the last
    // entry first, so that an earlier one of the same name overwrites it.
    var result: [String: String] = [:]
    result.reserveCapacity(count)
    for index in stride(from: count - 1, through: 0, by: -1) {
        guard let pointer = environ[index] else { continue }
        let text = UnsafeBufferPointer(start: UnsafeRawPointer(pointer).assumingMemoryBound(to: UInt8.self), count: strlen(pointer))
        guard let equals = text.firstIndex(of: UInt8(ascii: "=")) else { continue }
        result[String(decoding: UnsafeBufferPointer(rebasing: text[..<equals]), as: UTF8.self)] =
            String(decoding: UnsafeBufferPointer(rebasing: text[(equals + 1)...]), as: UTF8.self)
    }
    return result
}

var size = winsize()
let sized = ioctl(1, UInt(TIOCGWINSZ), &size) == 0
let width = sized && size.ws_col > 0 ? Int(size.ws_col) : 80
let height = sized && size.ws_row > 0 ? Int(size.ws_row) : 24
let console = Console(writeOut: { writeAll(1, $0) }, writeErr: { writeAll(2, $0) }, isTerminal: isatty(1) == 1, width: width,
                      height: height)
let arguments = Array(CommandLine.arguments.dropFirst())
let environment = processEnvironment()

// The command runs as a task that exits the process itself, its jobs run
// here on the main thread. (An `await` at top level would make this an async
// main, which parks the main thread in dispatch_main(), that is in
// pthread_exit(): a forced unwind, which in a statically linked binary first
// sorts every frame description entry in it, ~30 ms.)
let executor = MainThreadExecutor()
Task.detached(executorPreference: executor) {
    exit(await RetimeCLI.run(arguments, environment: environment, console: console, exiting: true))
}
executor.run()
