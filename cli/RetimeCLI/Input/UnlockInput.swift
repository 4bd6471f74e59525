import Domain
import FoundationEssentials
#if canImport(Glibc)
import Glibc
#endif

/// The CLI's side of `unlock typing:N` (cli.md, "Ending a strict session
/// early"): shows N random letters and digits on the terminal and reads them
/// back, so that a strict session ends early only for someone at the
/// keyboard who takes the trouble, never for a script.
enum UnlockInput {
    /// `unlock typing:N` with stdin that is not a terminal: a script cannot
    /// type the text back, so the stop is refused (exit 3, as a strict refusal).
    struct NeedsTerminal: RetimeCLIError {
        let count: Int
        var code: String { "unlock.needsTerminal" }
        var exitCode: Int32 { 3 }
        var hint: String? { "run it at a terminal, where the text to type back is shown" }
        var description: String { "unlock is typing:\(count): the text must be typed back at a terminal, and stdin is not one" }
    }

    /// The characters the text is drawn from.
    static let alphabet = Array("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789")

    /// Runs `attempt`; when the unlock method asks for text typed back, shows
    /// it, reads it, and runs `attempt` again with how many characters were
    /// typed back exactly. A mismatch refuses (`unlockMistyped`).
    /// With `unlock`, a shield that issues the text and checks it itself
    /// (the system service) is asked for it and handed what was typed: its
    /// check, not this process's, then admits the end.
    static func typingBack<T>(command: String, unlock: StrictUnlock? = nil, _ attempt: (Int?) async throws -> T) async throws -> T {
        do {
            return try await attempt(nil)
        } catch SessionError.unlockNeedsTyping(let count) {
            guard isatty(STDIN_FILENO) == 1 else { throw NeedsTerminal(count: count) }
            if let unlock, let issued = try await unlock.typingChallenge() {
                let typed = try readBack(issued, command: command)
                try await unlock.typedBack(typed)
                guard typed == issued else { throw SessionError.unlockMistyped }
                return try await attempt(count)
            }
            var generator = SystemRandomNumberGenerator()
            let text = String((0..<count).map { _ in alphabet.randomElement(using: &generator)! })
            guard try readBack(text, command: command) == text else { throw SessionError.unlockMistyped }
            return try await attempt(count)
        }
    }

    /// Shows `text` and reads one line from the terminal on stdin, echoed as
    /// typed; returns the line read (empty when longer than any text).
    private static func readBack(_ text: String, command: String) throws -> String {
        // Where the text is shown: the terminal itself, even with stdout or
        // stderr redirected; stderr when there is no controlling terminal.
        let tty = open("/dev/tty", O_WRONLY | O_CLOEXEC | O_NOCTTY)
        let out = tty >= 0 ? tty : STDERR_FILENO
        defer { if tty >= 0 { close(tty) } }
        let shown = "The session is strict. To end it early, type these \(text.count) characters back exactly:\nText: \(text)\nType it: "
        _ = shown.withCString { write(out, $0, strlen($0)) }
        var bytes: [UInt8] = []
        var byte: UInt8 = 0
        while true {
            let count = read(STDIN_FILENO, &byte, 1)
            if count < 0 && errno == EINTR { continue }
            guard count == 1 else { throw TerminalPrompt.Cancelled() }
            if byte == 0x0A || byte == 0x0D { break }
            bytes.append(byte)
            // Longer than the text is wrong already; read no further than a line.
            guard bytes.count <= PasscodeInput.maximumBytes else { return "" }
        }
        return String(decoding: bytes, as: UTF8.self)
    }
}
