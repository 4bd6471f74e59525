import Domain
import FoundationEssentials
#if canImport(Glibc)
import Glibc
#endif

/// Where passcodes come from: never argv (it is visible to every user in
/// `ps`), but a terminal prompt that does not echo, or lines on stdin for
/// scripts (`--stdin`, `--passcode-stdin`).
enum PasscodeInput {
    /// The flag that lets commands refused by a strict session take the passcode.
    static let overrideFlag = OptionSpec.flag("passcode-stdin", help: "Read the passcode from one line on stdin to override a strict session.")

    /// The longest passcode line read (semantics.md, "Bounded input"): a
    /// line that does not end by then (`/dev/zero`) is refused at once.
    static let maximumBytes = 1_024

    /// The passcode on stdin's first line if `flag` is set; nil if not, or if
    /// stdin is empty. Stdin that is a terminal is read without echo.
    static func override(_ flag: Bool, command: String) throws -> Passcode? {
        guard flag else { return nil }
        if isatty(0) == 1 { return try Passcode(TerminalPrompt.readSecret("Passcode: ", command: command)) }
        guard let line = try readStdinLine(command: command), !line.isEmpty else { return nil }
        return Passcode(line)
    }

    /// Runs `attempt` with the passcode `--passcode-stdin` gave, if any. On a
    /// terminal, a refusal that the passcode can lift asks for it, without
    /// echo, and tries once more: a strict session's `stop` or `pause`
    /// prompts as `auth set-passcode` does.
    static func withOverride<T>(_ flag: Bool, command: String, _ attempt: (Passcode?) async throws -> T) async throws -> T {
        do {
            return try await attempt(try override(flag, command: command))
        } catch AuthError.passcodeRequired where !flag && isatty(0) == 1 {
            return try await attempt(Passcode(try TerminalPrompt.readSecret("Passcode: ", command: command)))
        }
    }

    /// `prompts.count` passcodes: from stdin's lines when `fromStdin`, else
    /// asked for on the terminal without echo.
    static func read(_ prompts: [String], fromStdin: Bool, command: String) throws -> [Passcode] {
        try prompts.map { prompt in
            if fromStdin {
                guard let line = try readStdinLine(command: command) else {
                    throw UsageError(.missingValue, "expected \(prompts.count) line\(prompts.count == 1 ? "" : "s") on stdin", command: command)
                }
                return Passcode(line)
            }
            return Passcode(try TerminalPrompt.readSecret(prompt, command: command))
        }
    }

    /// One line of stdin without its line end (LF or CRLF); nil at end of
    /// input. Read a byte at a time, so the next line stays for the next
    /// call, and never more than `maximumBytes`.
    private static func readStdinLine(command: String) throws -> String? {
        var bytes: [UInt8] = []
        var byte: UInt8 = 0
        while true {
            let count = readByte(0, &byte)
            if count < 0 && errno == EINTR { continue }
            guard count == 1 else {
                if bytes.isEmpty { return nil }
                break
            }
            if byte == 0x0A { break }
            bytes.append(byte)
            guard bytes.count <= maximumBytes + 1 else { throw tooLong(command) }   // +1: a CR before the LF
        }
        if bytes.last == 0x0D { bytes.removeLast() }
        return try text(bytes, command: command)
    }

    /// The typed bytes as text: at most `maximumBytes`, and valid UTF-8
    /// (two different invalid sequences must never read as one passcode).
    static func text(_ bytes: [UInt8], command: String) throws -> String {
        guard bytes.count <= maximumBytes else { throw tooLong(command) }
        guard let text = String(validating: bytes, as: UTF8.self) else {
            throw UsageError(.invalidValue, "the passcode is not valid UTF-8 text", command: command)
        }
        return text
    }

    private static func tooLong(_ command: String) -> UsageError {
        UsageError(.invalidValue, "a passcode is at most \(maximumBytes) bytes", command: command)
    }
}

/// A no-echo prompt on the controlling terminal (`/dev/tty`, so it works
/// with stdout redirected). The terminal is put in non-canonical mode
/// without echo or signals, so Ctrl-C cancels cleanly and the terminal's
/// settings are always restored.
enum TerminalPrompt {
    struct Cancelled: RetimeCLIError {
        var code: String { "usage.cancelled" }
        var exitCode: Int32 { 2 }
        var hint: String? { nil }
        var description: String { "cancelled" }
    }

    /// Asks a yes-or-no question on the terminal (echoed, a line): true for
    /// an answer starting with y. Nil when there is no one to ask (stdin or
    /// stdout is not a terminal): scripts get the error, not a question.
    static func confirm(_ question: String) -> Bool? {
        guard isatty(STDIN_FILENO) == 1, isatty(STDOUT_FILENO) == 1 else { return nil }
        let fd = open("/dev/tty", O_RDWR | O_CLOEXEC | O_NOCTTY)
        guard fd >= 0 else { return nil }
        defer { close(fd) }
        _ = question.withCString { write(fd, $0, strlen($0)) }
        var bytes: [UInt8] = []
        var byte: UInt8 = 0
        while bytes.count < 64, read(fd, &byte, 1) == 1, byte != 0x0A, byte != 0x0D { bytes.append(byte) }
        return bytes.first.map { $0 == UInt8(ascii: "y") || $0 == UInt8(ascii: "Y") } ?? false
    }

    static func readSecret(_ prompt: String, command: String) throws -> String {
        let fd = open("/dev/tty", O_RDWR | O_CLOEXEC | O_NOCTTY)
        guard fd >= 0 else {
            throw UsageError(.missingValue, "no terminal to ask for the passcode on", hint: "give it on stdin with --stdin", command: command)
        }
        defer { close(fd) }
        var saved = termios()
        guard tcgetattr(fd, &saved) == 0 else {
            throw UsageError(.missingValue, "cannot read a passcode from this terminal", hint: "give it on stdin with --stdin", command: command)
        }
        var quiet = saved
        quiet.c_lflag &= ~tcflag_t(ECHO | ICANON | ISIG)
        tcsetattr(fd, TCSAFLUSH, &quiet)
        defer {
            tcsetattr(fd, TCSAFLUSH, &saved)
            _ = write(fd, "\n", 1)
        }
        _ = prompt.withCString { write(fd, $0, strlen($0)) }
        var bytes: [UInt8] = []
        var byte: UInt8 = 0
        while read(fd, &byte, 1) == 1 {
            switch byte {
            case 0x0A, 0x0D: return try PasscodeInput.text(bytes, command: command)
            case 0x03: throw Cancelled()                       // Ctrl-C
            case 0x04 where bytes.isEmpty: throw Cancelled()   // Ctrl-D on an empty line
            case 0x7F, 0x08:                                   // backspace: drop one whole character
                while let last = bytes.popLast(), last & 0xC0 == 0x80 {}
            case 0x15: bytes.removeAll()                       // Ctrl-U
            default:
                bytes.append(byte)
                guard bytes.count <= PasscodeInput.maximumBytes else { return try PasscodeInput.text(bytes, command: command) }
            }
        }
        throw Cancelled()
    }
}

/// One byte from `fd` (`read(2)`; outside the enums, whose own `read`
/// would shadow it).
private func readByte(_ fd: Int32, _ byte: inout UInt8) -> Int {
    read(fd, &byte, 1)
}
