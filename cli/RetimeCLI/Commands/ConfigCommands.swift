import Domain

/// `retime config list | get | set | unset`.
enum ConfigCommands {
    static let spec = CommandSpec("config", summary: "Read and change settings.", discussion: SettingKey.allCases
        .map { "  \($0.rawValue): \($0.summary)" }.joined(separator: "\n"),
                                  subcommands: [List.spec, Get.spec, Set.spec, Unset.spec])

    static let keyArgument = ArgumentSpec("KEY", help: "One of: " + SettingKey.allCases.map(\.rawValue).joined(separator: ", "),
                                          choices: SettingKey.allCases.map(\.rawValue))

    /// The services of the commands that read settings.
    struct Reading: CommandServices {
        @Resolved var settings: ReadSettingsUseCase
    }

    /// The services of the commands that change one.
    struct Changing: CommandServices {
        @Resolved var configure: ConfigureSettingUseCase
    }

    struct List: RetimeCommand {
        static let spec = CommandSpec("list", summary: "List every setting with the value in force.")
        init(_ parsed: ParsedCommand, values: DateValue) {}
        func run(_ services: ConfigCommands.Reading, _ io: CommandIO) async throws -> CommandResult {
            let entries = try await services.settings.all()
            return CommandResult(
                json: Documents.document(["config": .object(Dictionary(uniqueKeysWithValues: entries.map { ($0.key.rawValue, .string($0.value)) }))]),
                human: entries.map { "\($0.key.rawValue)=\($0.value)" + ($0.isDefault ? io.style.dim("  (default)") : "") }.joined(separator: "\n"))
        }
    }

    struct Get: RetimeCommand {
        static let spec = CommandSpec("get", summary: "Print one setting.", arguments: [ConfigCommands.keyArgument])
        let key: String
        init(_ parsed: ParsedCommand, values: DateValue) { key = parsed.argument("KEY") ?? "" }
        func run(_ services: ConfigCommands.Reading, _ io: CommandIO) async throws -> CommandResult {
            let key = try SettingKey(parsing: key)
            let value = try await services.settings.value(of: key).value
            return CommandResult(json: Documents.document(["config": .object([key.rawValue: .string(value)])]), human: value)
        }
    }

    struct Set: RetimeCommand {
        static let spec = CommandSpec("set", summary: "Change a setting.", options: [PasscodeInput.overrideFlag],
                                      arguments: [ConfigCommands.keyArgument, ArgumentSpec("VALUE", help: "The new value.")])
        let key: String, value: String, passcodeFromStdin: Bool
        init(_ parsed: ParsedCommand, values: DateValue) {
            key = parsed.argument("KEY") ?? ""
            value = parsed.argument("VALUE") ?? ""
            passcodeFromStdin = parsed.flag("passcode-stdin")
        }
        func run(_ services: ConfigCommands.Changing, _ io: CommandIO) async throws -> CommandResult {
            let (name, text) = (key, value)
            let (setting, stored) = try await PasscodeInput.withOverride(passcodeFromStdin, command: "retime config set") {
                try await services.configure.set(name, to: text, passcode: $0)
            }
            return .ok("\(setting.rawValue)=\(stored)")
        }
    }

    struct Unset: RetimeCommand {
        static let spec = CommandSpec("unset", summary: "Return a setting to its default.", options: [PasscodeInput.overrideFlag],
                                      arguments: [ConfigCommands.keyArgument])
        let key: String, passcodeFromStdin: Bool
        init(_ parsed: ParsedCommand, values: DateValue) {
            key = parsed.argument("KEY") ?? ""
            passcodeFromStdin = parsed.flag("passcode-stdin")
        }
        func run(_ services: ConfigCommands.Changing, _ io: CommandIO) async throws -> CommandResult {
            let name = key
            let setting = try await PasscodeInput.withOverride(passcodeFromStdin, command: "retime config unset") {
                try await services.configure.unset(name, passcode: $0)
            }
            return .ok("\(setting.key.rawValue) is back to its default, \(setting.value).")
        }
    }
}
