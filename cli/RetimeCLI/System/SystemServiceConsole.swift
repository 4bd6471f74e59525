import Adapters
import Domain
import FoundationEssentials
#if canImport(Glibc)
import Glibc
#endif

/// What the `system` commands ask of the service and of its state, in the
/// CLI's terms: the one place outside the service's root that speaks its
/// protocol and reads its files, so the commands stay free of adapters.
struct SystemServiceConsole: Sendable {
    /// A block the service holds, as `system status` and `release` show it.
    struct Block: Sendable, Equatable {
        var uid: UInt32
        var session: SessionID
        var targets: [String]
        var strict: Bool
        var plannedEnd: Date?
        var endsAfterSeconds: Double?
        /// Root released it: enforced by nothing, kept so it is not raised again.
        var released = false
        /// Down until then for an allowance the service counts.
        var allowanceUntil: Date? = nil
        /// Down until then for a break of the strict cycle the service keeps.
        var breakUntil: Date? = nil
        /// Lowered early by its user (a pause or a stop), kept for a resume.
        var lowered = false
    }

    /// The service's answer to `status`.
    struct Status: Sendable {
        var version: Int
        var layers: [LayerReport]
        var blocks: [Block]
    }

    let socketPath: String

    func status() throws -> Status {
        let answer = try ShieldClient(socketPath: socketPath).send(.init(op: .status))
        return Status(version: answer.version, layers: (answer.layers ?? []).map(\.report), blocks: (answer.blocks ?? []).map(Self.block))
    }

    /// Lifts the blocks of `uid`, or every user's; returns what it lifted.
    func release(uid: UInt32?, all: Bool) throws -> [Block] {
        try (ShieldClient(socketPath: socketPath).send(.init(op: .release, uid: uid, all: all ? true : nil)).blocks ?? []).map(Self.block)
    }

    /// The strict block still held in the service's state, if any: what
    /// `system uninstall` refuses to outlive.
    static func heldStrictBlock(stateDirectory: String) async throws -> HeldBlock? {
        let clock = SystemClock(), now = clock.now()
        var held = try await StoreHeldBlockStore(store: JSONFileStore(directory: stateDirectory)).blocks()
        for index in held.indices { held[index].advance(to: clock.bootTime()) }
        return held.first { $0.holdsStrictly && !$0.isOver(at: now) }
    }

    /// Where the service's own copy of retime is installed, root's alone.
    static let binaryPath = RootOwnedBinary.defaultPath
    /// The name the service's journal lines carry.
    static let journalIdentifier = AdministrativeLog.identifier

    /// Copies `source` to `binaryPath`, checking every directory above it.
    static func installBinary(from source: String) throws {
        try RootOwnedBinary().install(from: source)
    }

    /// Removes the installed copy; whether there was one.
    static func removeBinary() throws -> Bool {
        try RootOwnedBinary().remove()
    }

    /// The systemd unit `install` writes; its presence is what tells
    /// clients the service is installed (`auto` then blocks through it).
    static let unitPath = SystemServicePresence.unitPath

    /// Removes the default socket a stopped service leaves: once uninstalled,
    /// clients must not take it for a service that is only stalled.
    static func removeSocket() {
        var status = stat()
        if lstat(ShieldClient.defaultSocket, &status) == 0, status.st_mode & S_IFMT == S_IFSOCK { unlink(ShieldClient.defaultSocket) }
    }

    /// An administrative action, into the system log beside the service's.
    static func audit(_ message: String) {
        AdministrativeLog.notice(message)
    }

    /// Runs `command` (an absolute path first) on this terminal and waits
    /// for it: its exit status.
    static func run(_ command: [String]) throws -> Int32 {
        try ChildProcess.start(command).wait()
    }

    /// The service's state directory, root's alone.
    static func prepareStateDirectory(_ path: String) throws {
        try POSIXFiles.ensurePrivateDirectory(path)
    }

    private static func block(_ block: ShieldProtocol.Block) -> Block {
        Block(uid: block.uid, session: block.session, targets: block.targets, strict: block.strict, plannedEnd: block.plannedEnd,
              endsAfterSeconds: block.endsAfterSeconds, released: block.released == true, allowanceUntil: block.allowanceUntil,
              breakUntil: block.breakUntil, lowered: block.lowered == true)
    }
}
