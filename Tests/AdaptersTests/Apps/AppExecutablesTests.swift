@testable import Adapters
import Foundation
import Testing
#if canImport(Glibc)
import Glibc
#endif

/// What an `app:NAME` resolves to, and which processes it then matches:
/// the file NAME leads to, never a launcher that runs other programs too.
@Suite("An app's executables and the processes they match")
struct AppExecutablesTests {
    /// A directory standing for /usr/bin, with an executable file.
    static func bin() throws -> (TemporaryDirectory, (String) throws -> String) {
        let directory = TemporaryDirectory()
        let make = { (name: String) throws -> String in
            let path = directory.file(name)
            try FileManager.default.copyItem(atPath: "/bin/true", toPath: path)
            chmod(path, 0o755)
            return path
        }
        return (directory, make)
    }

    @Test("a name resolves through symlinks to a file whose name begins with it, as python3 to python3.11")
    func symlinkToVersion() throws {
        let (directory, make) = try Self.bin()
        let real = try make("tool3.11")
        try FileManager.default.createSymbolicLink(atPath: directory.file("tool3"), withDestinationPath: "tool3.11")
        let found = AppExecutables.identities(of: "tool3", in: [directory.path])
        #expect(found == [try #require(ExecutableIdentity.of(path: real))])
        #expect(AppExecutables.identities(of: "TOOL3", in: [directory.path]) == found, "names are compared without case")
        #expect(AppExecutables.identities(of: "absent", in: [directory.path]).isEmpty)
        #expect(AppExecutables.identities(of: "../tool3", in: [directory.path + "/x"]).isEmpty, "a name is not a path")
    }

    @Test("a launcher is left to the name match: a symlink to a file by another name, a file with many names, a file nobody may run")
    func launchers() throws {
        let (directory, make) = try Self.bin()
        _ = try make("snap")
        try FileManager.default.createSymbolicLink(atPath: directory.file("firefox"), withDestinationPath: "snap")
        #expect(AppExecutables.identities(of: "firefox", in: [directory.path]).isEmpty, "/snap/bin/firefox is /usr/bin/snap")
        let busybox = try make("busybox")
        for applet in (0...AppExecutables.maximumLinks).map({ "applet\($0)" }) { #expect(link(busybox, directory.file(applet)) == 0) }
        #expect(AppExecutables.identities(of: "applet1", in: [directory.path]).isEmpty, "a hard-linked busybox applet")
        let plain = directory.file("plain")
        #expect(FileManager.default.createFile(atPath: plain, contents: Data("x".utf8), attributes: [.posixPermissions: 0o644]))
        #expect(AppExecutables.identities(of: "plain", in: [directory.path]).isEmpty)
    }

    @Test("a process running the app's file is the app under any name, for the blocking user only; never the service, and retime only by the file")
    func matching() throws {
        let (directory, make) = try Self.bin()
        let real = try make("game")
        let identity = try #require(ExecutableIdentity.of(path: real))
        let own = ExecutableIdentity(device: 1, inode: 2)
        let matcher = AppMatcher(apps: [1_000: ["Game"]], own: own, ownPath: "/usr/local/libexec/retime/retime", directories: [directory.path])
        let renamed = ProcessTable.Entry(pid: 99_999_999, uid: 1_000, comm: "othername", executable: directory.file("link"), identity: identity)
        #expect(matcher.match(renamed) == "game")
        #expect(matcher.mayMatch(renamed))
        var another = renamed
        another.uid = 1_001
        #expect(matcher.match(another) == nil, "another user's process")
        var named = ProcessTable.Entry(pid: 99_999_999, uid: 1_000, comm: "game", executable: "/elsewhere/copy", identity: nil)
        #expect(matcher.match(named) == "game", "the name still matches")
        named.identity = own
        #expect(matcher.match(named) == nil, "never the service's own executable")
        var retime = renamed
        retime.comm = "retime"
        #expect(matcher.match(retime) == "game", "a blocked app's file named retime is still the app")
        let unrelated = ProcessTable.Entry(pid: 99_999_999, uid: 1_000, comm: "bash", executable: "/bin/bash",
                                           identity: ExecutableIdentity.of(path: "/bin/bash"))
        #expect(matcher.match(unrelated) == nil && !matcher.mayMatch(unrelated))
        #expect(matcher.spared(ProcessTable.Entry(pid: 99_999_999, uid: 1_000, comm: "retime", executable: "/home/u/retime", identity: nil)))
    }
}
