#if canImport(Glibc)
import Glibc
#endif
import Adapters
import Foundation
import Testing

/// What `system install` puts where root runs it: a copy that no other
/// user can replace, below directories that no other user can write.
@Suite("The root service's binary is root's alone", .enabled(if: geteuid() == 0, "needs root"))
struct RootOwnedBinaryTests {
    /// A root-owned 0755 directory of the test's own under /var/tmp's
    /// sibling /run (root's, not world-writable), removed afterwards.
    private func rootDirectory() throws -> String {
        let directory = "/run/retime-test-\(UUID().uuidString)"
        #expect(mkdir(directory, 0o755) == 0)
        chmod(directory, 0o755)
        return directory
    }

    private func source(_ bytes: String) throws -> String {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("retime-binary-\(UUID().uuidString)").path
        try bytes.write(toFile: path, atomically: true, encoding: .utf8)
        chown(path, 65_534, 65_534)   // a user's build, as the README's install makes it
        return path
    }

    @Test("copied root's and 0755, its directories made root's; a reinstall replaces it by a rename; removal leaves nothing, no empty directory either")
    func installs() throws {
        let top = try rootDirectory()
        defer { try? FileManager.default.removeItem(atPath: top) }
        let binary = RootOwnedBinary(path: top + "/libexec/retime/retime")
        try binary.install(from: try source("first build"))
        var info = stat()
        #expect(stat(binary.path, &info) == 0 && info.st_uid == 0 && info.st_gid == 0 && info.st_mode & 0o7777 == 0o755)
        #expect(try String(contentsOfFile: binary.path, encoding: .utf8) == "first build")
        #expect(stat(top + "/libexec/retime", &info) == 0 && info.st_uid == 0 && info.st_mode & 0o7777 == 0o755)
        let before = info.st_ino
        _ = stat(binary.path, &info)
        let inode = info.st_ino
        try binary.install(from: try source("second build"))
        _ = stat(binary.path, &info)
        #expect(info.st_ino != inode, "replaced by a rename, not rewritten in place under a running service")
        #expect(try String(contentsOfFile: binary.path, encoding: .utf8) == "second build")
        _ = stat(top + "/libexec/retime", &info)
        #expect(info.st_ino == before)
        #expect(FileManager.default.createFile(atPath: top + "/kept", contents: nil))
        #expect(try binary.remove())
        #expect(!FileManager.default.fileExists(atPath: top + "/libexec/retime"))
        #expect(!FileManager.default.fileExists(atPath: top + "/libexec"), "install made it; left empty, it goes too")
        #expect(FileManager.default.fileExists(atPath: top + "/kept"), "a directory with anything else in it stays")
        #expect(try binary.remove() == false, "nothing to remove is not an error")
    }

    @Test("refused below a directory another user owns or may write, and nothing is written there")
    func refusesUnsafeDirectories() throws {
        let top = try rootDirectory()
        defer { try? FileManager.default.removeItem(atPath: top) }
        let owned = top + "/users"
        #expect(mkdir(owned, 0o755) == 0 && chown(owned, 65_534, 65_534) == 0)
        let shared = top + "/shared"
        #expect(mkdir(shared, 0o755) == 0 && chmod(shared, 0o1777) == 0)
        let grouped = top + "/grouped"
        #expect(mkdir(grouped, 0o775) == 0 && chmod(grouped, 0o775) == 0)
        for directory in [owned, shared, grouped] {
            let binary = RootOwnedBinary(path: directory + "/retime/retime")
            #expect(throws: RootOwnedBinary.Unsafe.self) { try binary.install(from: try source("build")) }
            #expect(!FileManager.default.fileExists(atPath: binary.path), "\(directory)")
        }
        // A link to such a directory is followed, then refused all the same.
        #expect(symlink(shared, top + "/link") == 0)
        #expect(RootOwnedBinary.writableByOthers(top + "/link")?.contains("/shared may be written") == true)
        #expect(RootOwnedBinary.writableByOthers(top) == nil)
    }
}
