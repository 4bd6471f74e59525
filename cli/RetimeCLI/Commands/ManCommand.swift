/// `retime man`: prints the manual page.
struct ManCommand: RetimeCommand {
    static let spec = CommandSpec("man", summary: "Print the manual page (roff): retime man > ~/.local/share/man/man1/retime.1")
    init(_ parsed: ParsedCommand, values: DateValue) {}
    func run(_ services: NoServices, _ io: CommandIO) async throws -> CommandResult {
        CommandResult(json: Documents.ok, human: "", exported: ManPage.render(root: CommandTree.root, version: RetimeCLI.version))
    }
}
