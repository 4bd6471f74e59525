import Dispatch
import FoundationEssentials
import Domain
#if canImport(Glibc)
import Glibc
#endif

/// Shows long output a screen at a time, as git and journalctl do: through
/// `$PAGER`, else `less -FRX` where it is installed (`-F` quits at once
/// when the text fits, `-R` keeps colour, `-X` leaves it on the screen).
/// `PAGER=` (empty) or `cat` turns it off.
public enum TerminalPager {
    /// The pager command `environment` asks for, or nil for none.
    public static func command(_ environment: [String: String]) -> String? {
        if let pager = environment["PAGER"] {
            let trimmed = pager.trimmedSpaces
            return trimmed.isEmpty || trimmed == "cat" ? nil : trimmed
        }
        let less = ["/usr/bin/less", "/bin/less"].first { FileManager.default.isExecutableFile(atPath: $0) }
        return less.map { $0 + " -FRX" }
    }

    /// Writes `text` through `command` (run by `/bin/sh`); whether it ran.
    /// The pager gets the terminal: the user scrolls, then quits it.
    public static func page(_ text: String, through command: String, environment: [String: String]) -> Bool {
        var env = environment
        if env["LESS"] == nil { env["LESS"] = "FRX" }
        guard let input = try? ChildProcess.pipe() else { return false }
        guard let pager = try? ChildProcess.start(["/bin/sh", "-c", command], environment: env, stdin: input.read) else {
            close(input.read); close(input.write)
            return false
        }
        close(input.read)
        // A pager quit early (q) closes its end: the rest is not wanted
        // (the write gives EPIPE, not a SIGPIPE).
        ChildProcess.write(Array(text.utf8), to: input.write)
        close(input.write)
        _ = pager.wait()
        return true
    }
}
