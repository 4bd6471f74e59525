import Domain

/// `retime config list | get | set | unset`.
enum ConfigCommands {
    static let spec = CommandSpec("config", summary: "Read and change settings.", discussion: SettingKey.allCases
        .map { "  \($0.rawValue): \($0.summary)" }.joined(separator: "\n"),
                                  subcommands: [List.spec, Get.spec, Set.spec, Unset.spec])

    static let keyArgument = ArgumentSpec("KEY", help: "One of: " + SettingKey.allCases.map(\.rawValue).joined(separator: ", "),
                                          choices: SettingKey.allCases.map(\.rawValue))

    /// Every key with the value in force, and whether it is the default.
    static func effective(_ context: CommandContext) async throws -> [(SettingKey, String, Bool)] {
        let set = try await context.resolve((any SettingsStore).self).all()
        return SettingKey.allCases.map { key in
            set[key.rawValue].map { (key, $0, false) } ?? (key, key.defaultValue(dataDirectory: context.runtime.dataDirectory), true)
        }
    }

    struct List: RetimeCommand {
        static let spec = CommandSpec("list", summary: "List every setting with the value in force.")
        init(_ parsed: ParsedCommand, values: DateValue) {}
        func run(_ context: CommandContext) async throws -> CommandResult {
            let entries = try await ConfigCommands.effective(context)
            return CommandResult(
                json: Documents.document(["config": .object(Dictionary(uniqueKeysWithValues: entries.map { ($0.0.rawValue, .string($0.1)) }))]),
                human: entries.map { "\($0.0.rawValue)=\($0.1)" + ($0.2 ? context.style.dim("  (default)") : "") }.joined(separator: "\n"))
        }
    }

    struct Get: RetimeCommand {
        static let spec = CommandSpec("get", summary: "Print one setting.", arguments: [ConfigCommands.keyArgument])
        let key: String
        init(_ parsed: ParsedCommand, values: DateValue) { key = parsed.argument("KEY") ?? "" }
        func run(_ context: CommandContext) async throws -> CommandResult {
            let key = try SettingKey(parsing: key)
            let value = try await ConfigCommands.effective(context).first { $0.0 == key }!.1
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
        func run(_ context: CommandContext) async throws -> CommandResult {
            let settings = try context.resolve(ConfigureSettingUseCase.self)
            let (name, text) = (key, value)
            let (setting, stored) = try await PasscodeInput.withOverride(passcodeFromStdin, command: "retime config set") {
                try await settings.set(name, to: text, passcode: $0)
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
        func run(_ context: CommandContext) async throws -> CommandResult {
            let settings = try context.resolve(ConfigureSettingUseCase.self)
            let name = key
            let setting = try await PasscodeInput.withOverride(passcodeFromStdin, command: "retime config unset") {
                try await settings.unset(name, passcode: $0)
            }
            return .ok("\(setting.rawValue) is back to its default, \(setting.defaultValue(dataDirectory: context.runtime.dataDirectory)).")
        }
    }
}
