import Domain
import FoundationEssentials
import JSONDocument

/// `retime group ...`: named sets of targets to block.
enum GroupCommands {
    static let spec = CommandSpec("group", summary: "Manage groups: named sets of sites and apps to block.",
                                  subcommands: [Create.spec, List.spec, Show.spec, Rename.spec, Block.spec, Unblock.spec, Delete.spec,
                                                AllowanceCommands.SetAllowance.spec])

    /// How many targets a one-line summary names before counting the rest:
    /// a group of 10,000 is one readable line, and `group show` lists all.
    static let targetsShown = 12

    static func human(_ group: Group, style: Style) -> String {
        guard !group.targets.isEmpty else { return "\(style.bold(group.name.rawValue)): \(style.dim("(blocks nothing yet)"))" }
        var targets = group.targets.prefix(targetsShown).map(\.displayName).joined(separator: ", ")
        if group.targets.count > targetsShown {
            targets += style.dim(" and \(group.targets.count - targetsShown) more (retime group show \(GroupCommands.shellWord(group.name.rawValue)))")
        }
        return "\(style.bold(group.name.rawValue)): \(targets)"
    }

    /// A name as one shell word: in double quotes when it holds a space or
    /// a character the shell reads, those escaped.
    static func shellWord(_ name: String) -> String {
        let special: Set<Character> = ["\"", "\\", "$", "`"]
        guard name.contains(where: { $0.isWhitespace || special.contains($0) || "'&|;<>()*?[]#~!".contains($0) }) else { return name }
        return "\"" + name.map { special.contains($0) ? "\\\($0)" : String($0) }.joined() + "\""
    }

    /// The services of the commands that read groups: their repository.
    struct Repository: CommandServices {
        @Resolved var groups: any GroupRepository
    }

    static func result(_ group: Group, _ verb: String, style: Style) -> CommandResult {
        CommandResult(json: Documents.document(["group": Documents.group(group)]), human: "\(verb) \(human(group, style: style))")
    }

    struct Create: RetimeCommand {
        static let spec = CommandSpec("create", summary: "Create a group.",
                                      options: [.value("block", "TARGET", help: "A domain or app:NAME to block. A domain's www. is blocked too; its other subdomains where the system service's name layer runs (docs/shields.md).", repeatable: true)],
                                      arguments: [ArgumentSpec("NAME", help: "1-64 characters, no '/'; unique ignoring case.")])
        let name: String, targets: [String]
        init(_ parsed: ParsedCommand, values: DateValue) {
            name = parsed.argument("NAME") ?? ""
            targets = parsed.allValues("block")
        }
        struct Services: CommandServices {
            @Resolved var create: CreateGroupUseCase
        }
        func run(_ services: Services, _ io: CommandIO) async throws -> CommandResult {
            GroupCommands.result(try await services.create.execute(name: name, targets: targets), "Created", style: io.style)
        }
    }

    struct List: RetimeCommand {
        static let spec = CommandSpec("list", summary: "List the groups.", options: [CompletionScript.namesFlag])
        let namesOnly: Bool
        init(_ parsed: ParsedCommand, values: DateValue) { namesOnly = parsed.flag("names") }
        func run(_ services: GroupCommands.Repository, _ io: CommandIO) async throws -> CommandResult {
            let groups = try await services.groups.all()
            let human = namesOnly ? groups.map(\.name.rawValue).joined(separator: "\n")
                : groups.isEmpty ? "No groups yet: retime group create NAME --block example.com"
                : groups.map { GroupCommands.human($0, style: io.style) }.joined(separator: "\n")
            return CommandResult(json: Documents.document(["groups": .array(groups.map(Documents.group))]), human: human)
        }
    }

    struct Show: RetimeCommand {
        static let spec = CommandSpec("show", summary: "Show one group.", arguments: [ArgumentSpec("NAME", help: "The group.", names: .groups)])
        let name: String
        init(_ parsed: ParsedCommand, values: DateValue) { name = parsed.argument("NAME") ?? "" }
        struct Services: CommandServices {
            @Resolved var groups: any GroupRepository
            @Resolved var book: AllowanceBook
        }
        func run(_ services: Services, _ io: CommandIO) async throws -> CommandResult {
            guard let group = try await services.groups.group(named: name) else {
                throw GroupError.notFound(name: name)
            }
            var left: TimeInterval?
            if let allowance = group.allowance { left = try await services.book.standing(of: group.id, allowance: allowance).left }
            // An internationalised name also shows the ASCII form that the
            // hosts file and the JSON hold, so the two can be matched up.
            let targets = group.targets.isEmpty ? "  (none)" : group.targets.map {
                $0.displayName == $0.description ? "  \($0)" : "  \($0.displayName)  " + io.style.dim("(\($0))")
            }.joined(separator: "\n")
            var json = Documents.group(group)
            if case .object(var members) = json {
                members["allowanceLeftTodaySeconds"] = left.map { JSONValue.int(Int64($0.rounded(.down))) } ?? .null
                json = .object(members)
            }
            let allowance = group.allowance.map { "\nallowance: \(DurationValue.format($0)) a day, \(DurationValue.format(left ?? 0)) left today" } ?? ""
            return CommandResult(json: Documents.document(["group": json]),
                                 human: "\(io.style.bold(group.name.rawValue))  \(io.style.dim(group.id.description))\n\(targets)\(allowance)")
        }
    }

    struct Rename: RetimeCommand {
        static let spec = CommandSpec("rename", summary: "Rename a group; sessions and schedules follow it.",
                                      options: [PasscodeInput.overrideFlag], arguments: [ArgumentSpec("NAME", help: "The group.", names: .groups), ArgumentSpec("NEW", help: "Its new name.")])
        let name: String, newName: String, passcodeFromStdin: Bool
        init(_ parsed: ParsedCommand, values: DateValue) {
            name = parsed.argument("NAME") ?? ""
            newName = parsed.argument("NEW") ?? ""
            passcodeFromStdin = parsed.flag("passcode-stdin")
        }
        struct Services: CommandServices {
            @Resolved var rename: RenameGroupUseCase
        }
        func run(_ services: Services, _ io: CommandIO) async throws -> CommandResult {
            let group = try await PasscodeInput.withOverride(passcodeFromStdin, command: "retime group rename") {
                try await services.rename.execute(name: name, to: newName, passcode: $0)
            }
            return CommandResult(json: Documents.document(["group": Documents.group(group)]),
                                 human: "Renamed \(name.trimmedSpaces) to \(io.style.bold(group.name.rawValue)); its sessions and schedules follow it.")
        }
    }

    /// `NAME TARGET...`, the arguments of block and unblock.
    static func targetArguments(_ help: String) -> [ArgumentSpec] {
        [ArgumentSpec("NAME", help: "The group.", names: .groups), ArgumentSpec("TARGET", help: help, variadic: true)]
    }

    struct Block: RetimeCommand {
        static let spec = CommandSpec("block", summary: "Add targets to a group.",
                                      arguments: GroupCommands.targetArguments("A domain or app:NAME."))
        let parsed: ParsedCommand
        init(_ parsed: ParsedCommand, values: DateValue) { self.parsed = parsed }
        struct Services: CommandServices {
            @Resolved var block: BlockTargetsUseCase
        }
        func run(_ services: Services, _ io: CommandIO) async throws -> CommandResult {
            let group = try await services.block.execute(group: parsed.argument("NAME") ?? "", targets: parsed.allArguments("TARGET"))
            return GroupCommands.result(group, "Updated", style: io.style)
        }
    }

    struct Unblock: RetimeCommand {
        static let spec = CommandSpec("unblock", summary: "Remove targets from a group.",
                                      options: [PasscodeInput.overrideFlag], arguments: GroupCommands.targetArguments("A target the group blocks."))
        let parsed: ParsedCommand
        init(_ parsed: ParsedCommand, values: DateValue) { self.parsed = parsed }
        struct Services: CommandServices {
            @Resolved var unblock: UnblockTargetsUseCase
        }
        func run(_ services: Services, _ io: CommandIO) async throws -> CommandResult {
            let group = try await PasscodeInput.withOverride(parsed.flag("passcode-stdin"), command: "retime group unblock") {
                try await services.unblock.execute(group: parsed.argument("NAME") ?? "", targets: parsed.allArguments("TARGET"), passcode: $0)
            }
            return GroupCommands.result(group, "Updated", style: io.style)
        }
    }

    struct Delete: RetimeCommand {
        static let spec = CommandSpec("delete", summary: "Delete a group that nothing uses.", options: [PasscodeInput.overrideFlag],
                                      arguments: [ArgumentSpec("NAME", help: "The group.", names: .groups)])
        let name: String, passcodeFromStdin: Bool
        init(_ parsed: ParsedCommand, values: DateValue) {
            name = parsed.argument("NAME") ?? ""
            passcodeFromStdin = parsed.flag("passcode-stdin")
        }
        struct Services: CommandServices {
            @Resolved var delete: DeleteGroupUseCase
        }
        func run(_ services: Services, _ io: CommandIO) async throws -> CommandResult {
            let group = try await PasscodeInput.withOverride(passcodeFromStdin, command: "retime group delete") {
                try await services.delete.execute(name: name, passcode: $0)
            }
            return .ok("Deleted group \(io.style.bold(group.name.rawValue)).")
        }
    }
}
