#if canImport(Glibc)
import Domain
import FoundationEssentials
import Glibc
import JSONDocument
#endif

/// `retime system run | status | release | install | uninstall`: the root
/// service that holds every user's block (cli.md, "The system service").
enum SystemCommands {
    static let spec = CommandSpec("system", summary: "The root service that enforces blocks the blocked user cannot lift.",
                                  subcommands: [Run.spec, Status.spec, Release.spec, SystemInstallCommands.Install.spec,
                                                SystemInstallCommands.Uninstall.spec])

    struct Run: RetimeCommand {
        static let spec = CommandSpec("run", summary: "Run the service in the foreground, as root (what systemd starts).", options: [
            .value("socket", "PATH", help: "Where to listen (default /run/retime/shield.sock)."),
            .value("state-dir", "DIR", help: "Its own state, root's alone (default /var/lib/retime)."),
            .value("hosts-file", "PATH", help: "The hosts file of its hosts layer (default /etc/hosts)."),
            .value("firewall", "MODE", help: "The firewall layer: auto (nftables where it works), nftables or off.",
                   choices: ["auto", "nftables", "off"]),
            .value("apps", "MODE", help: "The app layer, which terminates blocked apps: on (default) or off.", choices: ["on", "off"]),
            .value("names", "MODE", help: "How names are blocked: auto (the service's resolver for the blocking user alone where nftables "
                   + "can redirect its DNS, else the hosts file), resolver, or hosts (the hosts file, for every user).",
                   choices: ["auto", "resolver", "hosts"]),
            .value("request-timeout", "SECONDS", help: "How long a connection may take to send its whole request (default 5)."),
        ])
        static let reconciliation = Reconciliation.never
        let options: SystemOptions
        init(_ parsed: ParsedCommand, values: DateValue) throws(UsageError) {
            var options = SystemOptions()
            for (name, keyPath) in [("socket", \SystemOptions.socket), ("state-dir", \.stateDirectory), ("hosts-file", \.hostsFile)] {
                guard let value = parsed.value(name) else { continue }
                guard value.hasPrefix("/") else {
                    throw UsageError(.invalidValue, "--\(name) takes an absolute path", command: parsed.commandName)
                }
                options[keyPath: keyPath] = value
            }
            if let firewall = parsed.value("firewall").flatMap(SystemOptions.Firewall.init(rawValue:)) { options.firewall = firewall }
            if let apps = parsed.value("apps") { options.apps = apps == "on" }
            if let names = parsed.value("names").flatMap(SystemOptions.Names.init(rawValue:)) { options.names = names }
            if let text = parsed.value("request-timeout") {
                guard let seconds = Double(text), seconds.isFinite, (0.1...3_600).contains(seconds) else {
                    throw UsageError(.invalidValue, "--request-timeout takes seconds, from 0.1 to 3600", command: parsed.commandName)
                }
                options.requestTimeout = seconds
            }
            self.options = options
        }
        func run(_ services: DaemonCommands.Runtime, _ io: CommandIO) async throws -> CommandResult {
            try await SystemRunner(options: options, runtime: services.runtime).run()
            return .ok("")
        }
    }

    struct Status: RetimeCommand {
        static let spec = CommandSpec("status", summary: "Whether the service answers, its layers, and the blocks it holds for you.")
        static let reconciliation = Reconciliation.never
        init(_ parsed: ParsedCommand, values: DateValue) {}
        func run(_ services: DaemonCommands.Runtime, _ io: CommandIO) async throws -> CommandResult {
            let console = SystemServiceConsole(socketPath: services.runtime.shieldSocket)
            let answer: SystemServiceConsole.Status
            do { answer = try console.status() } catch {
                let json = Documents.document(["reachable": .bool(false), "version": .null, "layers": .array([]), "blocks": .array([])])
                throw SystemNotReachable(json: json, cause: error)
            }
            let blocks = answer.blocks
            let json = Documents.document([
                "reachable": .bool(true), "version": .int(Int64(answer.version)),
                "layers": .array(answer.layers.map(SystemCommands.document)),
                "blocks": .array(blocks.map(SystemCommands.document)),
            ])
            var lines = ["The system service answers at \(console.socketPath). Its layers:"]
            lines += answer.layers.map { layer in
                let failing = layer.failure.map { "FAILING (\($0)); retried every \(Int(LayerHealth.retryDelay)) s; " } ?? ""
                return "  \(layer.name): \(failing)\(layer.active ? "" : "off, ")\(layer.detail)" + (layer.usage.map { "; " + $0 } ?? "")
            }
            lines += blocks.isEmpty ? ["It holds no block for you."] : blocks.map(SystemCommands.line)
            return CommandResult(json: json, human: lines.joined(separator: "\n"))
        }
    }

    struct Release: RetimeCommand {
        static let spec = CommandSpec("release", summary: "Lift blocks now, as root (audited in the service's log).", options: [
            .value("uid", "UID", help: "The user whose blocks to lift."), .flag("all", help: "Lift every user's blocks."),
        ])
        static let reconciliation = Reconciliation.never
        let uid: UInt32?
        let all: Bool
        init(_ parsed: ParsedCommand, values: DateValue) throws(UsageError) {
            all = parsed.flag("all")
            uid = try parsed.value("uid").map { text throws(UsageError) in
                guard let uid = UInt32(text) else { throw UsageError(.invalidValue, "--uid takes a number", command: parsed.commandName) }
                return uid
            }
            guard (uid == nil) != !all else {
                throw UsageError(.missingValue, "give --uid UID or --all", command: parsed.commandName)
            }
        }
        func run(_ services: DaemonCommands.Runtime, _ io: CommandIO) async throws -> CommandResult {
            let released = try SystemServiceConsole(socketPath: services.runtime.shieldSocket).release(uid: uid, all: all)
            return CommandResult(json: Documents.document(["released": .array(released.map(SystemCommands.document))]),
                                 human: released.isEmpty ? "No block to lift." : "Lifted:\n" + released.map(SystemCommands.line).joined(separator: "\n"))
        }
    }

    static func document(_ block: SystemServiceConsole.Block) -> JSONValue {
        .object(["session": .string(block.session.description), "uid": .int(Int64(block.uid)),
                 "targets": .array(block.targets.map(JSONValue.string)), "strict": .bool(block.strict),
                 "plannedEnd": Documents.time(block.plannedEnd), "endsAfterSeconds": block.endsAfterSeconds.map(JSONValue.double) ?? .null,
                 "released": .bool(block.released), "allowanceUntil": Documents.time(block.allowanceUntil),
                 "breakUntil": Documents.time(block.breakUntil), "lowered": .bool(block.lowered)])
    }

    static func document(_ layer: LayerReport) -> JSONValue {
        .object(["name": .string(layer.name), "active": .bool(layer.active), "detail": .string(layer.detail),
                 "failure": layer.failure.map(JSONValue.string) ?? .null, "usage": layer.usage.map(JSONValue.string) ?? .null])
    }

    static func line(_ block: SystemServiceConsole.Block) -> String {
        let end = block.plannedEnd.map { " until \(LocalTime.dateTime($0))" } ?? " (open-ended)"
        if block.released { return "  \(block.session) (uid \(block.uid)): released by root; nothing of it is blocked" }
        if block.lowered { return "  \(block.session) (uid \(block.uid)): lowered early by its user; raised again if its session resumes" }
        if let until = block.allowanceUntil { return "  \(block.session) (uid \(block.uid)): down for an allowance until \(LocalTime.dateTime(until))" }
        if let until = block.breakUntil { return "  \(block.session) (uid \(block.uid)): down for a break until \(LocalTime.dateTime(until))" }
        return "  \(block.session) (uid \(block.uid)): \(block.targets.count) target(s)\(block.strict ? ", strict" : "")\(end)"
    }
}

/// `system status` when no service answers: exit 1, with the document.
struct SystemNotReachable: RetimeCLIError, ReportingError {
    var json: JSONValue
    var cause: any Error
    var report: String { "The system service does not answer." }
    var code: String { "system.unreachable" }
    var exitCode: Int32 { 1 }
    var hint: String? { "install it with 'sudo retime system install'" }
    var description: String { "the system service does not answer: \(cause)" }
}
