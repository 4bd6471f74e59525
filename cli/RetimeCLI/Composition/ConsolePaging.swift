import Adapters

/// Long human output on a terminal goes through the user's pager
/// (`TerminalPager`); the runner asks here, so it needs no adapter itself.
enum ConsolePaging {
    /// Shows `text` through the pager when it is longer than the terminal;
    /// whether it did (else the caller prints it).
    static func show(_ text: String, console: Console, environment: [String: String]) -> Bool {
        guard console.isTerminal, text.split(separator: "\n", omittingEmptySubsequences: false).count >= console.height,
              let pager = TerminalPager.command(environment) else { return false }
        return TerminalPager.page(text.hasSuffix("\n") ? text : text + "\n", through: pager, environment: environment)
    }
}
