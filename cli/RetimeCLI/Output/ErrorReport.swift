import Domain
import JSONDocument

/// One failure as the contract reports it: `retime: error: MESSAGE` (and a
/// `hint:` line) on stderr, with `--json` also a JSON error document there,
/// and the exit code of its kind.
struct ErrorReport {
    var code: String
    var message: String
    var hint: String?
    var exitCode: Int32
    /// A result a failing command still shows (`ReportingError`).
    var details: String?
    var detailsJSON: JSONValue?

    init(_ error: any Error) {
        switch error {
        case let error as any RetimeCLIError & ReportingError:
            self.init(code: error.code, message: error.description, hint: error.hint, exitCode: error.exitCode)
            details = error.report
            detailsJSON = error.json
        case let error as any RetimeCLIError:
            self.init(code: error.code, message: error.description, hint: error.hint, exitCode: error.exitCode)
        case let error as any RetimeError:
            // Instants on the user's clock, as every other line retime prints.
            self.init(code: error.code, message: error.message(writingInstants: { LocalTime.moment($0) }),
                      hint: ErrorHints.hint(forCode: error.code), exitCode: Self.exitCode(error.kind))
        case let error as ContainerValidationError:
            // A factory that failed on data (an unreadable file) is that
            // failure; anything else is a wiring mistake.
            if let cause = error.problems.lazy.compactMap(Self.cause).first {
                self.init(cause)
            } else {
                self.init(code: "internal.misconfigured", message: error.description, hint: nil, exitCode: 1)
            }
        case let error as ResolutionError:
            if let cause = Self.cause(error) { self.init(cause) } else {
                self.init(code: "internal.misconfigured", message: error.description, hint: nil, exitCode: 1)
            }
        case is CancellationError:
            self.init(code: "interrupted", message: "interrupted", hint: nil, exitCode: 1)
        default:
            self.init(code: "internal.unexpected", message: "\(error)", hint: nil, exitCode: 1)
        }
    }

    /// The longest message printed: an error naming a 131 KB argument
    /// says so in a line, not in 131 KB.
    static let longestMessage = 1_000

    private init(code: String, message: String, hint: String?, exitCode: Int32) {
        self.code = code
        self.message = message.count <= Self.longestMessage ? message
            : message.prefix(Self.longestMessage) + "... (\(message.count - Self.longestMessage) more characters)"
        self.hint = hint
        self.exitCode = exitCode
    }

    static func exitCode(_ kind: ErrorKind) -> Int32 {
        switch kind {
        case .domain: 1
        case .invalidInput: 2
        case .authorization: 3
        case .storage: 4
        }
    }

    private static func cause(_ error: ResolutionError) -> (any RetimeError)? {
        guard case .factoryFailed(_, _, let underlying) = error else { return nil }
        return underlying as? any RetimeError
    }

    func print(json: Bool, console: Console) -> Int32 {
        if let details {
            if json, let detailsJSON { console.out(JSONWriter.write(detailsJSON)) } else { console.out(details) }
        }
        console.err("retime: error: " + message.replacingAll("\n", with: " "))
        if let hint { console.err("hint: " + hint) }
        if json {
            console.err(JSONWriter.write(Documents.document(["error": .object(["code": .string(code), "message": .string(message)])])))
        }
        return exitCode
    }
}
