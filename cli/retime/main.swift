import Foundation
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

var size = winsize()
let width = ioctl(1, UInt(TIOCGWINSZ), &size) == 0 && size.ws_col > 0 ? Int(size.ws_col) : 80
let console = Console(writeOut: { writeAll(1, $0) }, writeErr: { writeAll(2, $0) }, isTerminal: isatty(1) == 1, width: width)
let status = await RetimeCLI.run(Array(CommandLine.arguments.dropFirst()), environment: ProcessInfo.processInfo.environment,
                                 console: console)
exit(status)
