/// The retime command line. Only `--version` and `--help` exist so far; the
/// commands of docs/cli.md arrive with the CLI composition root.
public enum RetimeCLI {
    public static let version = "0.1.0"

    /// Runs one invocation and returns its exit code.
    public static func run(_ arguments: [String], write: (String) -> Void, writeError: (String) -> Void) -> Int32 {
        switch arguments.first {
        case "--version":
            write("retime \(version)\n")
            return 0
        case nil, "-h", "--help", "help":
            write("usage: retime [--version] [--help]\n")
            return 0
        case let other?:
            writeError("retime: error: unknown command '\(other)'\n")
            return 2
        }
    }
}
