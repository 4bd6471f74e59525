import Domain
import FoundationEssentials
#if canImport(Glibc)
import Glibc
#endif

/// A hosts file split into the user's bytes and retime's block.
struct HostsFile {
    /// The file without retime's blocks, byte for byte as the user had it.
    private(set) var userBytes: [UInt8] = []
    private(set) var owner: SessionID?
    /// The owner mark of the block (`HostsFileShield.owner`), if it has one.
    private(set) var marker: String?
    private(set) var targets: [Target] = []
    /// CRLF if the file uses it, else LF.
    let lineEnd: [UInt8]

    /// Marks a block before which retime added a line end (the file lacked a final one).
    static let addedLineEnd = "+newline"

    init(parsing bytes: [UInt8]) {
        lineEnd = bytes.firstRange(of: [13, 10]) != nil ? [13, 10] : [10]
        let lines = Self.lines(of: bytes)
        var index = 0
        while index < lines.count {
            let text = Self.text(lines[index])
            // A block is retime's only when it names its session and is whole:
            // anything else that looks like one is left to the user.
            let header = text.hasPrefix(HostsFileShield.begin) ? text.dropFirst(HostsFileShield.begin.count).split(separator: " ") : []
            if let session = header.first.flatMap({ SessionID(String($0)) }),
               let close = lines[(index + 1)...].firstIndex(where: { Self.text($0).hasPrefix(HostsFileShield.end) }) {
                owner = session
                marker = header.first { $0.hasPrefix(HostsFileShield.ownerMark) }
                    .map { Self.unescape(String($0.dropFirst(HostsFileShield.ownerMark.count))) }
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

    /// The file's lines, each with its line end (the last may have none).
    static func lines(of bytes: [UInt8]) -> [ArraySlice<UInt8>] {
        var lines: [ArraySlice<UInt8>] = []
        var start = bytes.startIndex
        while start < bytes.endIndex {
            let end = bytes[start...].firstIndex(of: 10).map { $0 + 1 } ?? bytes.endIndex
            lines.append(bytes[start..<end])
            start = end
        }
        return lines
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

    /// The owner as one word of the header: `%`, spaces and control
    /// characters percent-encoded.
    static func escape(_ text: String) -> String {
        var escaped = ""
        for byte in text.utf8 {
            if byte <= 0x20 || byte == UInt8(ascii: "%") || byte >= 0x7F {
                escaped += "%" + String(byte, radix: 16, uppercase: true).leftPadded(to: 2)
            } else {
                escaped.unicodeScalars.append(Unicode.Scalar(byte))
            }
        }
        return escaped
    }

    static func unescape(_ text: String) -> String {
        var bytes: [UInt8] = [], index = text.utf8.startIndex
        let utf8 = text.utf8
        while index < utf8.endIndex {
            let byte = utf8[index]
            if byte == UInt8(ascii: "%"), let end = utf8.index(index, offsetBy: 3, limitedBy: utf8.endIndex),
               let value = UInt8(String(decoding: utf8[utf8.index(after: index)..<end], as: UTF8.self), radix: 16) {
                bytes.append(value)
                index = end
            } else {
                bytes.append(byte)
                index = utf8.index(after: index)
            }
        }
        return String(decoding: bytes, as: UTF8.self)
    }

    private static func text(_ line: ArraySlice<UInt8>) -> String {
        String(decoding: line, as: UTF8.self).trimmedLineBreaks
    }
}

private extension String {
    func leftPadded(to width: Int) -> String { String(repeating: "0", count: max(0, width - count)) + self }
}
