import Domain
import FoundationEssentials
#if canImport(Glibc)
import Glibc
#endif

/// Blocks domains through a hosts file: a marked block maps each domain and
/// its `www.` to `0.0.0.0` and `::`. Every other byte of the file stays as it
/// was (CRLF line ends, a missing final newline, comments), the block is
/// written atomically, raising is idempotent, and lowering restores the file
/// exactly. Apps cannot be blocked this way; they are recorded in the block
/// so the block says what it was asked to do.
///
/// The block is marked with its owner, the data directory whose session
/// raised it: another data directory pointed at the same file never lifts
/// or replaces it (a second data directory must not undo a strict block).
/// A block with no mark (written before blocks had one) is taken as ours.
public struct HostsFileShield: Shield {
    public let path: String
    /// Who raised the block (the data directory); nil: this shield marks
    /// and checks no owner.
    public let owner: String?

    /// A block of another owner stands in the file.
    public struct ForeignBlock: Error, CustomStringConvertible {
        public var path: String
        public var owner: String
        public var description: String {
            "\(path) holds the block of another retime data directory (\(owner)); only that one may lift or replace it"
        }
    }

    static let begin = "# retime begin"
    static let end = "# retime end"
    static let target = "# retime target "
    static let ownerMark = "owner="

    public init(path: String, owner: String? = nil) {
        self.path = path
        self.owner = owner
    }

    /// `hosts:` and the file's path.
    public var identity: String { Self.identityPrefix + path }
    public static let identityPrefix = "hosts:"

    /// Sites, by the hosts file; no process is stopped.
    public func reach(askingAboutApps: Bool) async -> ShieldReach { ShieldReach(sites: true, apps: .unsupported) }

    public func raise(_ targets: [Target], for session: SessionID) async throws {
        let file = HostsFile(parsing: try read())
        if let foreign = foreignOwner(of: file) { throw ForeignBlock(path: path, owner: foreign) }
        try write(file.rendered(adding: block(targets, session: session)))
    }

    public func lower(for session: SessionID) async throws {
        let file = HostsFile(parsing: try read())
        guard file.owner == session, foreignOwner(of: file) == nil else { return }
        try write(file.rendered(adding: nil))
    }

    /// This owner's block; another owner's is none of ours.
    public func state() async throws -> ShieldState? {
        let file = HostsFile(parsing: try read())
        guard foreignOwner(of: file) == nil else { return nil }
        return file.owner.map { ShieldState(session: $0, targets: file.targets) }
    }

    /// The owner of the file's block when it is another's.
    private func foreignOwner(of file: HostsFile) -> String? {
        guard let owner, let marked = file.marker, marked != owner else { return nil }
        return marked
    }

    /// The block's lines, without line ends.
    private func block(_ targets: [Target], session: SessionID) -> [String] {
        var lines = ["\(Self.begin) \(session)" + (owner.map { " " + Self.ownerMark + HostsFile.escape($0) } ?? "")
                     + " (added by retime; do not edit)"]
        for target in targets {
            lines.append(Self.target + target.description)
            guard case .domain(let name) = target else { continue }
            for host in [name.ascii, "www." + name.ascii] {
                lines.append("0.0.0.0 \(host)")
                lines.append(":: \(host)")
            }
        }
        lines.append(Self.end)
        return lines
    }

    /// Copies of the hosts file that a writer killed mid-write left beside
    /// it (a minute old at least: younger ones may be a live write).
    public func strayTempFiles(now: Date = Date()) -> [String] {
        let name = String(path.split(separator: "/").last ?? "")
        return POSIXFiles.abandonedTempFiles(in: POSIXFiles.parentDirectory(of: path), now: now) { $0 == name }
    }

    private func read() throws -> [UInt8] {
        try permitted { try POSIXFiles.read(path) ?? [] }
    }

    /// A hosts file is read by every program: its owner and mode (0644)
    /// are kept, never the store's 0600.
    private func write(_ bytes: [UInt8]) throws {
        try permitted { _ = try POSIXFiles.writeAtomically(bytes, to: path, system: .init(inPlaceWhenFixed: false)) }
    }

    /// A failure to read or write the file that the user's rights explain
    /// is told as such: the hosts shield is for users who may write the
    /// hosts file (root, for /etc/hosts), and no repair of retime's mends it.
    private func permitted<Result>(_ work: () throws -> Result) throws -> Result {
        do { return try work() } catch let error as StoreError {
            guard let problem = permissionProblem() else { throw error }
            throw SessionError.shieldNotPermitted("you cannot write the hosts file \(path): \(problem); the hosts shield is only for users who may write it")
        }
    }
}
