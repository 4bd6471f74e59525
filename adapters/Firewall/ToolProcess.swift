import Foundation

/// Runs a system tool (`nft`) to completion, feeding it `input` and
/// collecting what it prints, as the firewall layer drives it.
enum ToolProcess {
    struct Outcome {
        var status: Int32
        var output: Data
        var errors: String
    }

    /// The first of `directories` that holds an executable `name` (the
    /// service may run with a PATH that lacks /usr/sbin).
    static func locate(_ name: String, in directories: [String] = ["/usr/sbin", "/sbin", "/usr/bin", "/bin", "/usr/local/sbin"]) -> String? {
        directories.map { $0 + "/" + name }.first { FileManager.default.isExecutableFile(atPath: $0) }
    }

    static func run(_ command: [String], input: Data = Data()) throws -> Outcome {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: command[0])
        process.arguments = Array(command.dropFirst())
        let stdin = Pipe(), stdout = Pipe(), stderr = Pipe()
        process.standardInput = stdin
        process.standardOutput = stdout
        process.standardError = stderr
        try process.run()
        // Written and read on their own threads: a tool that prints while
        // it reads must never wait on a full pipe.
        let group = DispatchGroup()
        let written = stdin.fileHandleForWriting
        DispatchQueue.global().async(group: group) {
            try? written.write(contentsOf: input)
            try? written.close()
        }
        let errors = LockedData()
        let errorHandle = stderr.fileHandleForReading
        DispatchQueue.global().async(group: group) { errors.set(errorHandle.readDataToEndOfFile()) }
        let output = stdout.fileHandleForReading.readDataToEndOfFile()
        group.wait()
        process.waitUntilExit()
        return Outcome(status: process.terminationStatus, output: output, errors: String(decoding: errors.get(), as: UTF8.self))
    }
}

/// Bytes handed from a reader thread to the caller.
private final class LockedData: @unchecked Sendable {
    private let lock = NSLock()
    private var data = Data()
    func set(_ value: Data) { lock.withLock { data = value } }
    func get() -> Data { lock.withLock { data } }
}
