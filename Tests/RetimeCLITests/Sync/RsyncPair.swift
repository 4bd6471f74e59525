import Foundation

/// Two plain directories, each one device's data directory, that a person's
/// script copies into each other with `rsync` (no `--delete`): the simplest
/// folder sync there is, with none of Syncthing's version vectors.
///
/// A copy into a device's folder leaves that device's own files alone
/// (`--exclude` of its `history/<id>/` and `devices/<id>/`): every device
/// writes only its own files, so no other copy of them is ever newer, while
/// rsync, which goes by size and modification time to the second, would
/// bring back an older copy of a file its owner wrote again within the
/// second, even with `--update` (`--modify-window=-1`, nanoseconds, makes
/// rsync 3.5 copy older files over newer ones outright). `--update` keeps a
/// third device's files from going back to an older copy on the way.
/// docs/storage.md, "Devices", gives the same recipe.
struct RsyncPair {
    static let executable = "/usr/bin/rsync"
    static var available: Bool { FileManager.default.isExecutableFile(atPath: executable) }

    let root: String
    let folderA: String
    let folderB: String

    /// Runs `body` with two empty folders; always removes them after.
    static func run<T>(_ body: (RsyncPair) throws -> T) throws -> T {
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("retime-rsync-\(UUID().uuidString)").path
        let pair = RsyncPair(root: root, folderA: root + "/a/data", folderB: root + "/b/data")
        defer { try? FileManager.default.removeItem(atPath: root) }
        for folder in [pair.folderA, pair.folderB] {
            try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        }
        return try body(pair)
    }

    /// Copies `sender`'s folder into `receiver`'s, but for the receiver's
    /// own files. Each device's `device-id` stays its own, as with
    /// `SyncthingPair.ignores`.
    func copy(from sender: SharedFolderDevice, to receiver: SharedFolderDevice) throws {
        let rsync = Process()
        rsync.executableURL = URL(fileURLWithPath: Self.executable)
        rsync.arguments = ["-a", "--update", "--exclude=/device-id", "--exclude=/device-id.*", "--exclude=/devices/*/snapshots/",
                           "--exclude=/history/\(receiver.id)/", "--exclude=/devices/\(receiver.id)/",
                           sender.dataDirectory + "/", receiver.dataDirectory + "/"]
        let errors = Pipe()
        rsync.standardError = errors
        rsync.standardOutput = FileHandle.nullDevice
        rsync.standardInput = FileHandle.nullDevice
        try rsync.run()
        let said = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        rsync.waitUntilExit()
        guard rsync.terminationStatus == 0 else {
            throw LoopbackHTTP.Failure(description: "rsync \(sender.name) -> \(receiver.name) exited \(rsync.terminationStatus): \(said)")
        }
    }
}
