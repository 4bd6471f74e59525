import RetimeShared

/// An import that cannot start: the source cannot be read or is not what
/// `--from` says it is. Problems with single entries are not errors; they
/// are reported and skipped (`ImportBatch.Problem`).
public enum ImportError: RetimeError, Equatable {
    case unreadable(path: String, reason: String)
    case notTheFormat(path: String, expected: String, reason: String)

    public var code: String {
        switch self {
        case .unreadable: "import.unreadable"
        case .notTheFormat: "import.invalidFormat"
        }
    }

    public var kind: ErrorKind {
        switch self {
        case .unreadable: .storage
        case .notTheFormat: .invalidInput
        }
    }

    public var description: String {
        switch self {
        case .unreadable(let path, let reason): "cannot read \(path): \(reason)"
        case .notTheFormat(let path, let expected, let reason): "\(path) is not \(expected): \(reason)"
        }
    }
}
