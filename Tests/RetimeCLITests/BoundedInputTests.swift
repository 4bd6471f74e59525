import Foundation
import Testing

/// Endless, huge and malformed input gets a clear error at once, never
/// gigabytes of memory (semantics.md, "Bounded input").
@Suite("Bounded input through the binary")
struct BoundedInputTests {
    let retime = RetimeProcess()

    /// Runs retime with stdin redirected from `file` (a shell does the redirection).
    func run(_ arguments: [String], stdin file: String) throws -> RetimeProcess.Outcome {
        var redirected = retime
        redirected.launcher = ["/bin/sh", "-c", "exec \"$0\" \"$@\" < \"$RETIME_TEST_STDIN\""]
        redirected.environment["RETIME_TEST_STDIN"] = file
        return try redirected.run(arguments)
    }

    @Test("a passcode read from /dev/zero is refused after 1,024 bytes (exit 2), for every command that reads one")
    func endlessPasscode() throws {
        #expect(try retime.run(["auth", "set-passcode", "--stdin"], input: "1234\n").status == 0)
        try retime.run("start", "--for", "10m", "--strict")
        for arguments in [["auth", "change-passcode", "--stdin"], ["stop", "--passcode-stdin"], ["pause", "--passcode-stdin"],
                          ["auth", "remove-passcode", "--stdin"]] {
            let outcome = try run(arguments + ["--json"], stdin: "/dev/zero")
            #expect(outcome.status == 2 && outcome.err.contains("at most 1024 bytes"), "\(arguments): \(outcome.err)")
        }
        #expect((try retime.run("status", "--json").json["active"] as? Bool) == true, "the strict session still runs")
    }

    @Test("a line over 1,024 bytes is refused as such; the longest passcode is taken; invalid UTF-8 is refused, never read as another passcode")
    func passcodeLength() throws {
        let line = try retime.run(["auth", "set-passcode", "--stdin"], input: String(repeating: "p", count: 1_025) + "\n")
        #expect(line.status == 2 && line.err.contains("at most 1024 bytes"), "\(line.err)")
        let tooLong = try retime.run(["auth", "set-passcode", "--stdin"], input: String(repeating: "é", count: 256) + "\n")
        #expect(tooLong.status == 2 && tooLong.err.contains("at most 500 bytes"), "256 characters of 2 bytes: \(tooLong.err)")
        let longest = String(repeating: "é", count: 250)   // 500 bytes, what the hashing takes
        #expect(try retime.run(["auth", "set-passcode", "--stdin"], input: longest + "\r\n").status == 0)
        #expect(try retime.run(["auth", "remove-passcode", "--stdin"], input: longest + "\n").status == 0)
        let invalid = FileManager.default.temporaryDirectory.appendingPathComponent("retime-invalid-\(UUID().uuidString)").path
        try Data([0x61, 0xFF, 0x62, 0x0A]).write(to: URL(fileURLWithPath: invalid))
        let outcome = try run(["auth", "set-passcode", "--stdin"], stdin: invalid)
        #expect(outcome.status == 2 && outcome.err.contains("not valid UTF-8"), "\(outcome.err)")
        #expect(try retime.run("auth", "status", "--json").json["passcodeSet"] as? Bool == false)
    }

    @Test("import of /dev/zero, of a FIFO, and of a file over the limit: a clear error at once")
    func endlessImport() throws {
        let outcome = try retime.run("import", "--from", "watson", "/dev/zero")
        #expect(outcome.status != 0 && outcome.err.contains("not a regular file"), "\(outcome.err)")
        let huge = FileManager.default.temporaryDirectory.appendingPathComponent("retime-huge-\(UUID().uuidString)").path
        #expect(FileManager.default.createFile(atPath: huge, contents: nil))
        let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: huge))
        try handle.truncate(atOffset: 300 << 20)   // sparse: 300 MiB that take no disk
        try handle.close()
        defer { try? FileManager.default.removeItem(atPath: huge) }
        let big = try retime.run("import", "--from", "watson", huge)
        #expect(big.status != 0 && big.err.contains("larger than"), "\(big.err)")
    }

    @Test("a data file replaced by a device or a huge file is a storage error naming it, and stays as it was")
    func hugeDataFile() throws {
        try retime.run("group", "create", "g")
        let path = try retime.changeLog("groups")
        try FileManager.default.removeItem(atPath: path)
        let handle = FileHandle(forWritingAtPath: path) ?? {
            FileManager.default.createFile(atPath: path, contents: nil)
            return FileHandle(forWritingAtPath: path)!
        }()
        try handle.truncate(atOffset: 100 << 20)
        try handle.close()
        let outcome = try retime.run("group", "list", "--json")
        #expect(outcome.status == 4 && outcome.err.contains(path) && outcome.err.contains("larger than"), "\(outcome.err)")
        #expect((try FileManager.default.attributesOfItem(atPath: path)[.size] as? Int) == 100 << 20)
    }
}
