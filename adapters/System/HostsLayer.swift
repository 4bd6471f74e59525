import Domain
import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// The system service's hosts-file layer: one marked block holding every
/// user's blocked domains (each with its `www.`, to `0.0.0.0` and `::`), so
/// a domain stays blocked while any user's block holds it. Every other byte
/// of the file stays as it was. Written by rename where the file can be
/// replaced, in place where it cannot (a bind-mounted `/etc/hosts` answers
/// `EBUSY`); its owner and mode are kept, and no temp copy is left behind.
public struct HostsLayer: BlockLayer {
    public let path: String
    public var name: String { "hosts" }

    static let begin = "# retime-shield begin (added by the retime system service; do not edit)"
    static let end = "# retime-shield end"

    public init(path: String) {
        self.path = path
    }

    public func enforce(_ blocks: [HeldBlock]) async throws {
        let current = try POSIXFiles.read(path, limit: 16 << 20) ?? []
        var domains = Set<String>()
        for block in blocks {
            for case .domain(let name) in block.targets { domains.insert(name.ascii) }
        }
        let wanted = Self.render(userBytes: Self.userBytes(of: current), domains: domains.sorted())
        guard wanted != current else { return }
        try write(wanted)
    }

    /// The domains the file's block holds now (for `shield test` and tests).
    public func blockedDomains() throws -> [String] {
        let text = String(decoding: try POSIXFiles.read(path, limit: 16 << 20) ?? [], as: UTF8.self)
        guard let start = text.range(of: Self.begin + "\n") else { return [] }
        return text[start.upperBound...].split(separator: "\n").prefix { $0 != Self.end }
            .filter { $0.hasPrefix("0.0.0.0 ") && !$0.hasPrefix("0.0.0.0 www.") }.map { String($0.dropFirst(8)) }
    }

    /// The file without the service's block.
    static func userBytes(of bytes: [UInt8]) -> [UInt8] {
        var lines: [ArraySlice<UInt8>] = []
        var start = bytes.startIndex
        while start < bytes.endIndex {
            let end = bytes[start...].firstIndex(of: 0x0A).map { $0 + 1 } ?? bytes.endIndex
            lines.append(bytes[start..<end])
            start = end
        }
        func text(_ line: ArraySlice<UInt8>) -> String { String(decoding: line, as: UTF8.self).trimmingCharacters(in: .newlines) }
        guard let first = lines.firstIndex(where: { text($0) == begin }),
              let last = lines[first...].firstIndex(where: { text($0) == end }) else { return bytes }
        return Array((lines[..<first] + lines[(last + 1)...]).joined())
    }

    static func render(userBytes: [UInt8], domains: [String]) -> [UInt8] {
        guard !domains.isEmpty else { return userBytes }
        var bytes = userBytes
        if let last = bytes.last, last != 0x0A { bytes.append(0x0A) }
        var lines = [begin]
        for domain in domains {
            for host in [domain, "www." + domain] { lines += ["0.0.0.0 \(host)", ":: \(host)"] }
        }
        lines.append(end)
        for line in lines { bytes += Array(line.utf8) + [0x0A] }
        return bytes
    }

    private func write(_ bytes: [UInt8]) throws {
        var status = stat()
        let existing = stat(path, &status) == 0
        let temp = "\(path).tmp-\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
        let fd = open(temp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0o644)
        // A directory we may not create in: write in place.
        guard fd >= 0 else { return try writeInPlace(bytes) }
        do {
            try POSIXFiles.writeAll(fd, bytes, path: path)
            if existing {
                _ = fchown(fd, status.st_uid, status.st_gid)
                _ = fchmod(fd, status.st_mode & 0o7777)
            }
            guard fsync(fd) == 0 else { throw StoreError.notWritable(path: path, reason: "fsync: \(POSIXFiles.reason())") }
            close(fd)
        } catch {
            close(fd)
            unlink(temp)
            throw error
        }
        guard rename(temp, path) == 0 else {
            let code = errno
            unlink(temp)
            // A bind mount (a container's /etc/hosts) cannot be replaced.
            if code == EBUSY || code == EXDEV || code == EPERM { return try writeInPlace(bytes) }
            throw StoreError.notWritable(path: path, reason: POSIXFiles.reason(code))
        }
        POSIXFiles.syncDirectory(POSIXFiles.parentDirectory(of: path))
    }

    private func writeInPlace(_ bytes: [UInt8]) throws {
        let fd = open(path, O_WRONLY | O_CLOEXEC | O_NOFOLLOW)
        guard fd >= 0 else { throw StoreError.notWritable(path: path, reason: POSIXFiles.reason()) }
        defer { close(fd) }
        guard ftruncate(fd, 0) == 0 else { throw StoreError.notWritable(path: path, reason: POSIXFiles.reason()) }
        try POSIXFiles.writeAll(fd, bytes, path: path)
        guard fsync(fd) == 0 else { throw StoreError.notWritable(path: path, reason: "fsync: \(POSIXFiles.reason())") }
    }
}
