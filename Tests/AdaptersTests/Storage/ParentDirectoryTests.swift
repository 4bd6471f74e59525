@testable import Adapters
import Foundation
import Testing

@Suite("The parent directory of a path")
struct ParentDirectoryTests {
    @Test("is what NSString's deletingLastPathComponent gives", arguments: [
        "/a/b/c", "/a/b/c/", "/a/b//c", "/a", "/a/", "/", "a/b", "a/b/", "",
        "/data dir/with spaces/store/session.json", "/tmp/ü/événements.jsonl", "/x/.hidden", "/x/..", "./a",
    ])
    func matchesFoundation(path: String) {
        #expect(POSIXFiles.parentDirectory(of: path) == (path as NSString).deletingLastPathComponent)
    }

    @Test("where Foundation goes wrong it does not: a bare name has none (Foundation traps), the root's is the root")
    func pastFoundation() {
        #expect(POSIXFiles.parentDirectory(of: "a") == "")
        #expect(POSIXFiles.parentDirectory(of: "//") == "/")
        #expect(POSIXFiles.parentDirectory(of: "///a") == "/")
    }

    @Test("missing parents are made, also from a path with a trailing slash")
    func ensureDirectory() throws {
        let root = TemporaryDirectory()
        let deep = root.file("one/two/three/")
        try POSIXFiles.ensureDirectory(deep)
        var info = stat()
        #expect(stat(root.file("one/two/three"), &info) == 0 && info.st_mode & S_IFMT == S_IFDIR)
        #expect(info.st_mode & 0o777 == 0o700)
    }
}
