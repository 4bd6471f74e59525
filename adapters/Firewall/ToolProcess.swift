import Foundation

/// Runs a system tool (`nft`, `systemctl`) to completion, feeding it
/// `input` and collecting what it prints, as the firewall layer and the
/// daemon's login service drive them.
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

    /// The first directory of `$PATH`, then of the usual ones, that holds
    /// an executable `name`.
    static func locate(_ name: String, environment: [String: String]) -> String? {
        let path = (environment["PATH"] ?? "").split(separator: ":").map(String.init).filter { $0.hasPrefix("/") }
        return locate(name, in: path + ["/usr/bin", "/bin", "/usr/sbin", "/sbin"])
    }

    /// `environment`: the tool's, else this process's.
    static func run(_ command: [String], input: Data = Data(), environment: [String: String]? = nil) throws -> Outcome {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: command[0])
        process.arguments = Array(command.dropFirst())
        if let environment { process.environment = environment }
        let stdin = Pipe(), stdout = Pipe(), stderr = Pipe()
        process.standardInput = stdin
        process.standardOutput = stdout
        process.standardError = stderr
        // Told of the exit by Foundation's child watcher: `waitUntilExit`
        // polls its run loop every 50 ms, which every `start` and `stop`
        // waited out once per nft call.
        let exited = DispatchSemaphore(value: 0)
        process.terminationHandler = { _ in exited.signal() }
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
        exited.wait()
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
