#if canImport(Glibc)
import Domain
import FoundationEssentials
import Glibc
import JSONDocument
#endif

/// `retime auth status | set-passcode | change-passcode | remove-passcode | request`.
enum AuthCommands {
    static let spec = CommandSpec("auth", summary: "The passcode that can end a strict session early, and the shield's authorization.",
                                  subcommands: [Status.spec, SetPasscode.spec, ChangePasscode.spec, RemovePasscode.spec, Request.spec])

    static let stdinFlag = OptionSpec.flag("stdin", help: "Read from stdin, one line each, instead of a prompt.")

    /// The answer in words (`--json` keeps the stable name).
    static func words(_ authorization: ShieldAuthorization) -> String {
        switch authorization {
        case .notDetermined: "not asked yet ('retime auth request' asks)"
        case .denied: "denied"
        case .approved: "approved"
        }
    }

    /// The contract's shape (cli.md); where the passcode was last changed
    /// is said in words only.
    static func document(_ status: AuthStatus) -> JSONValue {
        Documents.document([
            "passcodeSet": .bool(status.passcodeSet),
            "lockedUntil": Documents.time(status.lockedUntil),
            "failedAttempts": .int(Int64(status.failedAttempts)),
            "shieldAuthorization": .string(status.shieldAuthorization.rawValue),
        ])
    }

    /// `on laptop (1a2b3c4d), 2026-11-25 10:00`: where the passcode was last
    /// set or removed, when that was another device (nil otherwise).
    static func elsewhere(_ origin: PasscodeOrigin?) -> String? {
        guard let origin, !origin.isThisDevice else { return nil }
        let device = origin.deviceName.map { "\($0) (\(origin.device.prefix(8)))" } ?? origin.device
        return "on \(device), \(LocalTime.dateTime(origin.at))"
    }

    struct Status: RetimeCommand {
        static let spec = CommandSpec("status", summary: "Whether a passcode is set, any lockout, and the shield's authorization.")
        init(_ parsed: ParsedCommand, values: DateValue) {}
        struct Services: CommandServices {
            @Resolved var status: AuthStatusUseCase
        }
        func run(_ services: Services, _ io: CommandIO) async throws -> CommandResult {
            let status = try await services.status.execute()
            var passcode = status.passcodeSet ? (status.heldByEnforcer ? "set (held by the system service)" : "set") : "not set"
            if let elsewhere = AuthCommands.elsewhere(status.origin) { passcode += status.passcodeSet ? " \(elsewhere)" : " (removed \(elsewhere))" }
            var lines = ["passcode: " + passcode]
            if let until = status.lockedUntil { lines.append("locked out until \(LocalTime.dateTime(until))") }
            if status.failedAttempts > 0 { lines.append("wrong attempts in a row: \(status.failedAttempts)") }
            lines.append("shield authorization: \(AuthCommands.words(status.shieldAuthorization))")
            return CommandResult(json: AuthCommands.document(status), human: lines.joined(separator: "\n"))
        }
    }

    struct SetPasscode: RetimeCommand {
        static let spec = CommandSpec("set-passcode", summary: "Set the passcode (not during a strict session).", options: [AuthCommands.stdinFlag])
        let fromStdin: Bool
        init(_ parsed: ParsedCommand, values: DateValue) { fromStdin = parsed.flag("stdin") }
        struct Services: CommandServices {
            @Resolved var set: SetPasscodeUseCase
        }
        func run(_ services: Services, _ io: CommandIO) async throws -> CommandResult {
            let passcode = try AuthCommands.newPasscode(fromStdin: fromStdin, first: "New passcode: ", command: "retime auth set-passcode")
            try await services.set.execute(passcode)
            return .ok("Passcode set. A strict session can now be ended early with it.")
        }
    }

    struct ChangePasscode: RetimeCommand {
        static let spec = CommandSpec("change-passcode", summary: "Change the passcode: the current one, then the new one.",
                                      options: [AuthCommands.stdinFlag])
        let fromStdin: Bool
        init(_ parsed: ParsedCommand, values: DateValue) { fromStdin = parsed.flag("stdin") }
        func run(_ services: AuthCommands.Changing, _ io: CommandIO) async throws -> CommandResult {
            let command = "retime auth change-passcode"
            let current = try PasscodeInput.read(["Current passcode: "], fromStdin: fromStdin, command: command)[0]
            let new = try AuthCommands.newPasscode(fromStdin: fromStdin, first: "New passcode: ", command: command)
            try await services.change.change(from: current, to: new)
            return .ok("Passcode changed.")
        }
    }

    struct RemovePasscode: RetimeCommand {
        static let spec = CommandSpec("remove-passcode", summary: "Remove the passcode, given it: strict sessions then have no way out.",
                                      options: [AuthCommands.stdinFlag])
        let fromStdin: Bool
        init(_ parsed: ParsedCommand, values: DateValue) { fromStdin = parsed.flag("stdin") }
        func run(_ services: AuthCommands.Changing, _ io: CommandIO) async throws -> CommandResult {
            let current = try PasscodeInput.read(["Current passcode: "], fromStdin: fromStdin, command: "retime auth remove-passcode")[0]
            try await services.change.remove(current)
            return .ok("Passcode removed.")
        }
    }

    struct Request: RetimeCommand {
        static let spec = CommandSpec("request", summary: "Ask the configured shield whether it can enforce blocks here.")
        init(_ parsed: ParsedCommand, values: DateValue) {}
        struct Services: CommandServices {
            @Resolved var request: RequestShieldAuthorizationUseCase
        }
        func run(_ services: Services, _ io: CommandIO) async throws -> CommandResult {
            let status = try await services.request.execute()
            let answer = status.shieldAuthorization
            let why = answer == .denied ? " (it cannot write what it needs; see 'retime doctor')" : ""
            return CommandResult(json: AuthCommands.document(status), human: "shield authorization: \(AuthCommands.words(answer))\(why)")
        }
    }

    /// The services of the commands that change or remove the passcode.
    struct Changing: CommandServices {
        @Resolved var change: ChangePasscodeUseCase
    }

    /// A new passcode: one stdin line, or typed twice at the prompt.
    static func newPasscode(fromStdin: Bool, first: String, command: String) throws -> Passcode {
        if fromStdin { return try PasscodeInput.read([first], fromStdin: true, command: command)[0] }
        // Checked before it is asked again: typing a refused passcode twice helps no one.
        let entered = try PasscodeInput.read([first], fromStdin: false, command: command)[0]
        try PasscodePolicy.check(entered)
        let again = try PasscodeInput.read(["Repeat it: "], fromStdin: false, command: command)[0]
        guard entered == again else { throw AuthError.invalidPasscode(reason: "the two entries differ") }
        return entered
    }
}
