import Domain
import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// Blocks domains through a hosts file: a marked block maps each domain and
/// its `www.` to `0.0.0.0` and `::`. Every other byte of the file stays as it
/// was (CRLF line ends, a missing final newline, comments), the block is
/// written atomically, raising is idempotent, and lowering restores the file
/// exactly. Apps cannot be blocked this way; they are recorded in the block
/// so the block says what it was asked to do.
public struct HostsFileShield: Shield {
    public let path: String

    static let begin = "# retime begin"
    static let end = "# retime end"
    static let target = "# retime target "

    public init(path: String) {
        self.path = path
    }

    /// `hosts:` and the file's path.
    public var identity: String { Self.identityPrefix + path }
    public static let identityPrefix = "hosts:"

    public func raise(_ targets: [Target], for session: SessionID) async throws {
        try write(HostsFile(parsing: try read()).rendered(adding: block(targets, session: session)))
    }

    public func lower(for session: SessionID) async throws {
        let file = HostsFile(parsing: try read())
        guard file.owner == session else { return }
        try write(file.rendered(adding: nil))
    }

    public func state() async throws -> ShieldState? {
        let file = HostsFile(parsing: try read())
        return file.owner.map { ShieldState(session: $0, targets: file.targets) }
    }

    /// The block's lines, without line ends.
    private func block(_ targets: [Target], session: SessionID) -> [String] {
        var lines = ["\(Self.begin) \(session) (added by retime; do not edit)"]
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

    private func read() throws -> [UInt8] { try POSIXFiles.read(path) ?? [] }

    private func write(_ bytes: [UInt8]) throws {
        let mode = (try? POSIXFiles.linkStatus(path))??.mode
        try POSIXFiles.writeAtomically(bytes, to: path)
        // A hosts file is read by every program: keep its mode (0644), not the store's 0600.
        if let mode { chmod(path, mode_t(mode & 0o7777)) } else { chmod(path, 0o644) }
    }
}

/// A hosts file split into the user's bytes and retime's block.
struct HostsFile {
    /// The file without retime's blocks, byte for byte as the user had it.
    private(set) var userBytes: [UInt8] = []
    private(set) var owner: SessionID?
    private(set) var targets: [Target] = []
    /// CRLF if the file uses it, else LF.
    let lineEnd: [UInt8]

    /// Marks a block before which retime added a line end (the file lacked a final one).
    static let addedLineEnd = "+newline"

    init(parsing bytes: [UInt8]) {
        lineEnd = bytes.firstRange(of: [13, 10]) != nil ? [13, 10] : [10]
        var lines: [ArraySlice<UInt8>] = []
        var start = bytes.startIndex
        while start < bytes.endIndex {
            let end = bytes[start...].firstIndex(of: 10).map { $0 + 1 } ?? bytes.endIndex
            lines.append(bytes[start..<end])
            start = end
        }
        var index = 0
        while index < lines.count {
            let text = Self.text(lines[index])
            // A block is retime's only when it names its session and is whole:
            // anything else that looks like one is left to the user.
            let header = text.hasPrefix(HostsFileShield.begin) ? text.dropFirst(HostsFileShield.begin.count).split(separator: " ") : []
            if let session = header.first.flatMap({ SessionID(String($0)) }),
               let close = lines[(index + 1)...].firstIndex(where: { Self.text($0).hasPrefix(HostsFileShield.end) }) {
                owner = session
                targets = lines[index...close].map(Self.text).filter { $0.hasPrefix(HostsFileShield.target) }
                    .compactMap { try? Target(parsing: String($0.dropFirst(HostsFileShield.target.count))) }
                if header.contains(Substring(Self.addedLineEnd)), userBytes.suffix(lineEnd.count).elementsEqual(lineEnd) {
                    userBytes.removeLast(lineEnd.count)
                }
                index = close + 1
                continue
            }
            userBytes += lines[index]
            index += 1
        }
    }

    /// The user's bytes, then `block` (if any) in the file's line ends.
    func rendered(adding block: [String]?) -> [UInt8] {
        guard var lines = block else { return userBytes }
        var bytes = userBytes
        if let last = bytes.last, last != 10 {
            bytes += lineEnd
            lines[0] += " " + Self.addedLineEnd
        }
        for line in lines { bytes += Array(line.utf8) + lineEnd }
        return bytes
    }

    private static func text(_ line: ArraySlice<UInt8>) -> String {
        String(decoding: line, as: UTF8.self).trimmingCharacters(in: .newlines)
    }
}
