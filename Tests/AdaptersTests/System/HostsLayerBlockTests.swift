@testable import Adapters
import Foundation
import Testing

/// The service's block in the hosts file, found and taken out by its
/// marker lines whatever the file's line ends (issue 44: every raise read
/// every line of all users' block as a `String`).
@Suite("The hosts layer's block in the file")
struct HostsLayerBlockTests {
    static func block(_ names: [String], lineEnd: String) -> String {
        ([HostsLayer.begin] + names.map { "0.0.0.0 \($0)" } + [HostsLayer.end]).map { $0 + lineEnd }.joined()
    }

    @Test("the user's lines before and after the block are kept, byte for byte, with LF or CRLF line ends")
    func userLinesKept() {
        for lineEnd in ["\n", "\r\n"] {
            let before = "127.0.0.1 localhost\(lineEnd)# a comment\(lineEnd)", after = "192.168.1.5 nas\(lineEnd)"
            let file = before + Self.block(["a.test", "b.test"], lineEnd: lineEnd) + after
            #expect(HostsLayer.userBytes(of: Array(file.utf8)) == Array((before + after).utf8), "line end \(lineEnd.debugDescription)")
        }
    }

    @Test("a marker with a Unicode line separator after it is still the marker; a file without a whole block is left as it is")
    func markers() {
        let file = "127.0.0.1 localhost\n" + HostsLayer.begin + "\u{2028}\n0.0.0.0 a.test\n" + HostsLayer.end + "\n"
        #expect(HostsLayer.userBytes(of: Array(file.utf8)) == Array("127.0.0.1 localhost\n".utf8))
        for partial in ["127.0.0.1 localhost\n", "127.0.0.1 localhost\n\(HostsLayer.begin)\n0.0.0.0 a.test\n",
                        "# retime-shield begin, but not the marker\n0.0.0.0 a.test\n\(HostsLayer.end)\n"] {
            #expect(HostsLayer.userBytes(of: Array(partial.utf8)) == Array(partial.utf8), "\(partial)")
        }
    }

    @Test("a block of 40,000 names is taken out whole")
    func largeBlock() {
        let names = (0..<40_000).map { "n\($0).test" }
        let file = "127.0.0.1 localhost\n" + Self.block(names, lineEnd: "\n")
        #expect(HostsLayer.userBytes(of: Array(file.utf8)) == Array("127.0.0.1 localhost\n".utf8))
    }
}
