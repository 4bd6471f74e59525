import Domain
import FoundationEssentials
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// The system service's hosts-file layer: one marked block holding every
/// user's blocked domains (each with its `www.`, to `0.0.0.0` and `::`), so
/// a domain stays blocked while any user's block holds it. Every other byte
/// of the file stays as it was. Written by rename where the file can be
/// replaced, in place where it cannot (a bind-mounted `/etc/hosts` answers
/// `EBUSY`); its owner and mode are kept, and no temp copy is left behind.
/// Every user reads the file, and every user's names resolve through it:
/// so it is used only where the name layer cannot run. Beside that layer it
/// is `retired`: it holds nothing, and removes a block an earlier run left.
public struct HostsLayer: BlockLayer {
    public let path: String
    /// Why the layer holds nothing (the name layer blocks names instead), or nil.
    public let retired: String?
    public var name: String { "hosts" }
    /// Each blocking user's blocked domains: `check` answers a user about
    /// its own blocks, never whether another user blocks a name.
    private let owners = BlockOwners()
    /// Each user's lines of the block, rendered again only when its targets change.
    private let entries = PerUserDerivation { HostsEntries(domains: BlockedNames(targets: Array($0.joined())).domains) }

    /// Room for every user's blocks (10,000 targets a block, four lines a domain).
    static let readLimit = 128 << 20
    static let begin = "# retime-shield begin (added by the retime system service; do not edit)"
    static let end = "# retime-shield end"

    public init(path: String, retired: String? = nil) {
        self.path = path
        self.retired = retired
    }

    public func enforce(_ blocks: [HeldBlock]) async throws -> Date? {
        let current = try POSIXFiles.read(path, limit: Self.readLimit) ?? []
        owners.set(blocks)
        let entries = retired == nil ? HostsEntries.merged(entries.values(of: blocks).values) : []
        let wanted = Self.render(userBytes: Self.userBytes(of: current), entries: entries)
        guard wanted != current else { return nil }
        try POSIXFiles.writeAtomically(wanted, to: path, system: .init())
        return nil
    }

    public func report() async -> LayerReport {
        if let retired { return LayerReport(name: name, active: false, detail: "not used: \(retired); \(path) holds no block of the service's") }
        return LayerReport(name: name, active: true, detail: "a marked block in \(path), machine-wide: every user's blocked names, for every user")
    }

    /// Whether the block holds the domain (or a domain that covers it).
    public func check(_ target: Target, for uid: UInt32) async -> LayerCheck? {
        await checks([target], for: uid)[0]
    }

    /// Each target looked up in the block as the file holds it, read and
    /// parsed once for them all; only `uid`'s own blocked names are looked
    /// at (a user learns nothing of another's).
    public func checks(_ targets: [Target], for uid: UInt32) async -> [LayerCheck?] {
        guard retired == nil else { return targets.map { _ in nil } }
        let mine = owners.domains(of: uid)
        var file: Result<Set<String>, any Error>?
        return targets.map { target -> LayerCheck? in
            guard case .domain(let domain) = target else { return nil }
            guard let mine, mine.covering(domain.ascii) != nil else {
                return LayerCheck(layer: name, blocked: false, detail: "not among your blocks' names")
            }
            if file == nil { file = Result { Set(try blockedDomains()) } }
            switch file! {
            case .failure(let error):
                return LayerCheck(layer: name, blocked: false, detail: "\(path) cannot be read: \(error)")
            case .success(let held):
                // A hosts file has no wildcards: the name itself or its `www.`.
                let ascii = domain.ascii
                let candidates = [ascii] + (ascii.hasPrefix("www.") ? [String(ascii.dropFirst(4))] : [])
                if let covering = candidates.first(where: { held.contains($0) && mine.domains.contains($0) }) {
                    return LayerCheck(layer: name, blocked: true, detail: "\(path) sends \(covering) to 0.0.0.0 and ::")
                }
                return LayerCheck(layer: name, blocked: false, detail: "\(path) does not hold it")
            }
        }
    }

    /// Removes the copies of the hosts file a writer killed mid-write left
    /// beside it (its PID gone), as the service does when it starts.
    @discardableResult
    public func removeStrayCopies() -> Int {
        let name = String(path.split(separator: "/").last ?? "")
        return POSIXFiles.removeTempFilesOfDeadWriters(in: POSIXFiles.parentDirectory(of: path)) { $0 == name }
    }

    /// The domains the file's block holds now (for `shield test` and tests).
    public func blockedDomains() throws -> [String] {
        let text = String(decoding: try POSIXFiles.read(path, limit: Self.readLimit) ?? [], as: UTF8.self)
        guard let start = text.firstRange(of: Self.begin + "\n") else { return [] }
        return text[start.upperBound...].split(separator: "\n").prefix { $0 != Self.end }
            .filter { $0.hasPrefix("0.0.0.0 ") && !$0.hasPrefix("0.0.0.0 www.") }.map { String($0.dropFirst(8)) }
    }

    /// The file without the service's block.
    static func userBytes(of bytes: [UInt8]) -> [UInt8] {
        let lines = HostsFile.lines(of: bytes)
        guard let first = lines.firstIndex(where: { isLine($0, beginBytes) }),
              let last = lines[first...].firstIndex(where: { isLine($0, endBytes) }) else { return bytes }
        return Array((lines[..<first] + lines[(last + 1)...]).joined())
    }

    private static let beginBytes = Array(begin.utf8), endBytes = Array(end.utf8)

    /// Whether `line`, its line breaks trimmed (`trimmedLineBreaks`), is
    /// `marker`. Every line of a block is looked at, and a block of all
    /// users' names is tens of thousands of lines: bytes first, and a
    /// `String` only for a line that starts as a comment and is not the
    /// marker as plain ASCII (one with a Unicode line break around it).
    private static func isLine(_ line: ArraySlice<UInt8>, _ marker: [UInt8]) -> Bool {
        var core = line[...]
        while let byte = core.first, (0x0A...0x0D).contains(byte) { core = core.dropFirst() }
        while let byte = core.last, (0x0A...0x0D).contains(byte) { core = core.dropLast() }
        if core.elementsEqual(marker) { return true }
        guard core.first == marker.first || core.first.map({ $0 >= 0x80 }) == true else { return false }
        return String(decoding: line, as: UTF8.self).trimmedLineBreaks.utf8.elementsEqual(marker)
    }

    /// The file: the user's bytes, then the block of `entries` (in order).
    static func render(userBytes: [UInt8], entries: [HostsEntries.Entry]) -> [UInt8] {
        guard !entries.isEmpty else { return userBytes }
        var bytes = userBytes
        bytes.reserveCapacity(userBytes.count + begin.utf8.count + end.utf8.count + 2 + entries.reduce(0) { $0 + $1.lines.count })
        if let last = bytes.last, last != 0x0A { bytes.append(0x0A) }
        bytes += Array(begin.utf8) + [0x0A]
        for entry in entries { bytes += entry.lines }
        bytes += Array(end.utf8) + [0x0A]
        return bytes
    }
}

/// The blocked domains of each user whose blocks a machine-wide layer was
/// last given.
final class BlockOwners: Sendable {
    private let derived = PerUserDerivation { BlockedNames(targets: Array($0.joined())) }
    private let domains = Mutex<[UInt32: BlockedNames]>([:])

    /// Takes the users' blocks; returns each user's names.
    @discardableResult
    func set(_ blocks: [HeldBlock]) -> [UInt32: BlockedNames] {
        let byUser = derived.values(of: blocks)
        domains.withLock { $0 = byUser }
        return byUser
    }

    func domains(of uid: UInt32) -> BlockedNames? {
        domains.withLock { $0[uid] }
    }
}
