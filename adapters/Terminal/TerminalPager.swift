import Foundation

/// Shows long output a screen at a time, as git and journalctl do: through
/// `$PAGER`, else `less -FRX` where it is installed (`-F` quits at once
/// when the text fits, `-R` keeps colour, `-X` leaves it on the screen).
/// `PAGER=` (empty) or `cat` turns it off.
public enum TerminalPager {
    /// The pager command `environment` asks for, or nil for none.
    public static func command(_ environment: [String: String]) -> String? {
        if let pager = environment["PAGER"] {
            let trimmed = pager.trimmingCharacters(in: .whitespaces)
            return trimmed.isEmpty || trimmed == "cat" ? nil : trimmed
        }
        let less = ["/usr/bin/less", "/bin/less"].first { FileManager.default.isExecutableFile(atPath: $0) }
        return less.map { $0 + " -FRX" }
    }

    /// Writes `text` through `command` (run by `/bin/sh`); whether it ran.
    /// The pager gets the terminal: the user scrolls, then quits it.
    public static func page(_ text: String, through command: String, environment: [String: String]) -> Bool {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/bin/sh")
        process.arguments = ["-c", command]
        var env = environment
        if env["LESS"] == nil { env["LESS"] = "FRX" }
        process.environment = env
        let input = Pipe()
        process.standardInput = input
        let exited = DispatchSemaphore(value: 0)
        process.terminationHandler = { _ in exited.signal() }
        guard (try? process.run()) != nil else { return false }
        // A pager quit early (q) closes its end: the rest is not wanted.
        signal(SIGPIPE, SIG_IGN)
        try? input.fileHandleForWriting.write(contentsOf: Data(text.utf8))
        try? input.fileHandleForWriting.close()
        exited.wait()
        return true
    }
}
