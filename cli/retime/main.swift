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
    var result: [String: String] = [:]
    var entry = environ
    while let pointer = entry.pointee {
        let text = String(cString: pointer)
        if let equals = text.utf8.firstIndex(of: UInt8(ascii: "=")) {
            let name = String(text[..<equals])
            if result[name] == nil { result[name] = String(text[text.utf8.index(after: equals)...]) }
        }
        entry += 1
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
