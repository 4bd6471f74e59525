import Adapters
import Foundation
import Testing

/// Child processes without Foundation's `Process`: what the tools, the
/// pager and the probes rely on.
@Suite("Child processes")
struct ChildProcessTests {
    /// Runs `command` with its stdout on a pipe: (status, output).
    func output(_ command: [String], environment: [String: String]? = nil) throws -> (Int32, String) {
        let out = try ChildProcess.pipe()
        let child = try ChildProcess.start(command, environment: environment, stdout: out.write)
        close(out.write)
        let bytes = ChildProcess.readToEnd(out.read)
        close(out.read)
        return (child.wait(), String(decoding: bytes, as: UTF8.self))
    }

    @Test("the exit status, or the number of the signal that ended it, as Process's terminationStatus")
    func status() throws {
        #expect(try ChildProcess.start(["/bin/sh", "-c", "exit 3"]).wait() == 3)
        #expect(try ChildProcess.start(["/bin/sh", "-c", "kill -TERM $$"]).wait() == SIGTERM)
        #expect(try output(["/bin/sh", "-c", "echo $GREETING"], environment: ["GREETING": "hi"]) == (0, "hi\n"))
    }

    @Test("a program that cannot be started is an error naming it, not a crash")
    func missing() {
        #expect(throws: ChildProcessError.self) { try ChildProcess.start(["/no/such/program"]) }
        #expect(throws: ChildProcessError.self) { try ChildProcess.start([]) }
    }

    @Test("the child inherits no descriptor but 0-2, no blocked signal and no ignored one")
    func cleanChild() throws {
        let held = open("/dev/null", O_RDONLY)   // not close-on-exec: Process's children would not see it either
        defer { close(held) }
        let (_, descriptors) = try output(["/bin/sh", "-c", "ls /proc/self/fd"])
        #expect(!descriptors.split(separator: "\n").contains(Substring("\(held)")), "\(descriptors)")
        var blocked = sigset_t(), before = sigset_t()
        sigemptyset(&blocked)
        sigaddset(&blocked, SIGHUP)
        pthread_sigmask(SIG_BLOCK, &blocked, &before)
        let previous = signal(SIGPIPE, SIG_IGN)
        defer { pthread_sigmask(SIG_SETMASK, &before, nil); signal(SIGPIPE, previous) }
        let (_, status) = try output(["/bin/sh", "-c", "grep -E '^Sig(Blk|Ign)' /proc/self/status"])
        #expect(status.contains("SigBlk:\t0000000000000000"), "\(status)")
        // sh ignores nothing of its own; SIGPIPE (bit 13) must not come from us.
        let ignored = status.split(separator: "\n").first { $0.hasPrefix("SigIgn") }.flatMap { UInt64($0.split(separator: "\t").last ?? "", radix: 16) } ?? 0
        #expect(ignored & (1 << 12) == 0, "\(status)")
    }

    @Test("writing to a child that stopped reading fails quietly: no SIGPIPE ends this process")
    func writeAfterReaderLeft() throws {
        let input = try ChildProcess.pipe()
        let child = try ChildProcess.start(["/bin/true"], stdin: input.read)
        close(input.read)
        #expect(child.wait() == 0)
        #expect(!ChildProcess.write([UInt8](repeating: 0x61, count: 1 << 20), to: input.write))
        close(input.write)
    }
}
