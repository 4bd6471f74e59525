import Domain
import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// Where passcodes come from: never argv (it is visible to every user in
/// `ps`), but a terminal prompt that does not echo, or lines on stdin for
/// scripts (`--stdin`, `--passcode-stdin`).
enum PasscodeInput {
    /// The flag that lets commands refused by a strict session take the passcode.
    static let overrideFlag = OptionSpec.flag("passcode-stdin", help: "Read the passcode from one line on stdin to override a strict session.")

    /// The passcode on stdin's first line if `flag` is set; nil if not, or if stdin is empty.
    static func override(_ flag: Bool) -> Passcode? {
        guard flag, let line = readStdinLine(), !line.isEmpty else { return nil }
        return Passcode(line)
    }

    /// `prompts.count` passcodes: from stdin's lines when `fromStdin`, else
    /// asked for on the terminal without echo.
    static func read(_ prompts: [String], fromStdin: Bool, command: String) throws -> [Passcode] {
        try prompts.map { prompt in
            if fromStdin {
                guard let line = readStdinLine() else {
                    throw UsageError(.missingValue, "expected \(prompts.count) line\(prompts.count == 1 ? "" : "s") on stdin", command: command)
                }
                return Passcode(line)
            }
            return Passcode(try TerminalPrompt.readSecret(prompt, command: command))
        }
    }

    /// One line of stdin without its line end (LF or CRLF); nil at end of input.
    private static func readStdinLine() -> String? {
        guard var line = readLine(strippingNewline: true) else { return nil }
        if line.hasSuffix("\r") { line.removeLast() }
        return line
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
            case 0x0A, 0x0D: return String(decoding: bytes, as: UTF8.self)
            case 0x03: throw Cancelled()                       // Ctrl-C
            case 0x04 where bytes.isEmpty: throw Cancelled()   // Ctrl-D on an empty line
            case 0x7F, 0x08:                                   // backspace: drop one whole character
                while let last = bytes.popLast(), last & 0xC0 == 0x80 {}
            case 0x15: bytes.removeAll()                       // Ctrl-U
            default: bytes.append(byte)
            }
        }
        throw Cancelled()
    }
}
