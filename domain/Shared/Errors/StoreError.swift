/// What can go wrong reading or writing stored data. Every case names the
/// file, so a user knows what to look at; the file itself is left as it was.
public enum StoreError: RetimeError, Equatable {
    /// The file exists but cannot be understood: empty, truncated, not JSON,
    /// NUL-filled, or a value that does not decode.
    case corrupted(path: String, reason: String)
    /// Written by a newer retime: the format version is higher than known.
    case unsupportedVersion(path: String, version: Int)
    case unreadable(path: String, reason: String)
    case notWritable(path: String, reason: String)
    /// Another process held the lock longer than the timeout.
    case lockTimeout(path: String, seconds: Double)
    /// A symbolic link stands where a data file should be.
    case symlinkRefused(path: String)
    /// Something other than a regular file (a FIFO, a socket, a device, a
    /// directory) stands where a data file should be: refused at once,
    /// never read or waited on. `kind` names what it is.
    case notRegularFile(path: String, kind: String)
    case invalidSuiteName(String)
    /// A value could not be encoded or decoded as the type asked for.
    case typeMismatch(key: String, reason: String)

    public var code: String {
        switch self {
        case .corrupted: "store.corrupted"
        case .unsupportedVersion: "store.unsupportedVersion"
        case .unreadable: "store.unreadable"
        case .notWritable: "store.notWritable"
        case .lockTimeout: "store.lockTimeout"
        case .symlinkRefused: "store.symlinkRefused"
        case .notRegularFile: "store.notRegularFile"
        case .invalidSuiteName: "store.invalidSuiteName"
        case .typeMismatch: "store.typeMismatch"
        }
    }

    public var kind: ErrorKind { .storage }

    public var description: String {
        switch self {
        case .corrupted(let path, let reason): "\(path) is corrupted (\(reason)); it was left untouched"
        case .unsupportedVersion(let path, let version):
            "\(path) has format version \(version), newer than this retime understands; upgrade retime"
        case .unreadable(let path, let reason): "cannot read \(path): \(reason)"
        case .notWritable(let path, let reason): "cannot write \(path): \(reason)"
        case .lockTimeout(let path, let seconds):
            "\(path) stayed locked by another retime process for \(seconds) s; try again"
        case .symlinkRefused(let path): "\(path) is a symbolic link; retime does not follow links to data files"
        case .notRegularFile(let path, let kind):
            "\(path) is a \(kind), not a regular file; retime neither reads nor waits on it: move it aside"
                + " ('retime doctor --repair' does, in a data directory)"
        case .invalidSuiteName(let name): "invalid suite name '\(name)'"
        case .typeMismatch(let key, let reason): "the value of '\(key)' has an unexpected shape: \(reason)"
        }
    }
}

extension StoreError {
    /// The file the error is about, when it names one.
    public var path: String? {
        switch self {
        case .corrupted(let path, _), .unsupportedVersion(let path, _), .unreadable(let path, _), .notWritable(let path, _),
             .lockTimeout(let path, _), .symlinkRefused(let path), .notRegularFile(let path, _): path
        case .invalidSuiteName, .typeMismatch: nil
        }
    }

    /// Whether the data itself is damaged (a file that cannot be
    /// understood), rather than out of reach.
    public var isDamage: Bool {
        switch self {
        case .corrupted, .unsupportedVersion, .typeMismatch: true
        default: false
        }
    }
}
