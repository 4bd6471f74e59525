import Domain
import FoundationEssentials
#if canImport(Glibc)
import Glibc
#endif

/// Files of the data directory that are not regular files: a FIFO, a
/// socket, a device, or a directory where retime keeps a file. retime
/// refuses them at once (`store.notRegularFile`) rather than wait on them;
/// `doctor` names them and `--repair` moves this device's aside, never
/// deleting. Another device's are only named: a sync tool would carry the
/// move to that device (semantics.md, "A peer's damage is not mine"), and
/// every reader here leaves them out until they read.
extension DataDirectoryHealth {
    /// The store's suite files are left to the suite checks, which restore
    /// a backup where they move one aside.
    func irregularFilesCheck(_ repairing: Bool) -> HealthCheck {
        let all = irregularFiles()
        let found = all.filter { !$0.peers }, peers = all.filter(\.peers)
        let left = peers.isEmpty ? "" : "; another device's: " + peers.map { "\($0.path) is a \($0.kind)" }.joined(separator: "; ")
            + " (left out until it reads; its own device mends it, nothing here changes it)"
        guard !found.isEmpty else {
            guard peers.isEmpty else { return HealthCheck(name: "file types", status: .warning, detail: "this device's files are regular files" + left) }
            return HealthCheck(name: "file types", status: .ok, detail: "every data file is a regular file")
        }
        let named = found.map { "\($0.path) is a \($0.kind)" }.joined(separator: "; ")
        guard repairing else {
            return HealthCheck(name: "file types", status: .error,
                               detail: "\(named); retime refuses to read it; run 'retime doctor --repair' to move it aside" + left)
        }
        let stamp = Timestamp.format(Date(), fractionDigits: 0).replacingAll(":", with: "")
        var moved: [String] = [], failed: [String] = []
        for file in found {
            let aside = file.path + ".corrupt-" + stamp
            if rename(file.path, aside) == 0 { moved.append("\(file.path) (a \(file.kind)) to \(aside)") } else {
                failed.append("\(file.path): \(String(cString: strerror(errno)))")
            }
        }
        guard failed.isEmpty else {
            return HealthCheck(name: "file types", status: .error, detail: "cannot move aside " + failed.joined(separator: "; ") + left)
        }
        return HealthCheck(name: "file types", status: .repaired, detail: "moved " + moved.joined(separator: "; ") + left)
    }

    /// Where retime keeps files: the data directory's own, the store's
    /// locks, backups and (for non-files) suites, and the history's
    /// segments; `peers`: one in another device's folder.
    private func irregularFiles() -> [(path: String, kind: String, peers: Bool)] {
        var candidates: [(path: String, peers: Bool)] = []
        func files(in directory: String, _ keep: (String) -> Bool) -> [String] {
            POSIXFiles.names(in: directory).filter { !$0.hasPrefix(".") && !$0.contains(".corrupt-") && keep($0) }
                .sorted().map { directory + "/" + $0 }
        }
        // This device's folder holds its store; without one (no id yet),
        // every device's folder counts as this one's.
        let own = paths.deviceStore.map { POSIXFiles.parentDirectory(of: $0) }
        let ownID = own.map { String($0.split(separator: "/").last ?? "") }
        // The device id is the device check's (its repair recovers the id).
        let dataFile: (String) -> Bool = { [".json", ".jsonl", ".lock", ".log"].contains(where: $0.hasSuffix) || $0.contains(".log.") }
        candidates += files(in: paths.root, dataFile).map { ($0, false) }
        candidates += files(in: paths.root + "/logs", dataFile).map { ($0, false) }
        candidates += files(in: paths.store) { $0.hasSuffix(".lock") }.map { ($0, false) }
        candidates += files(in: paths.store + "/backups") { _ in true }.map { ($0, false) }
        // Each device's change logs and their locks, and its own files
        // (its events, audit trail, logs, suites' locks and backups).
        for device in files(in: paths.root + "/devices", { _ in true }) where POSIXFiles.irregularKind(device) == "directory" {
            let peers = own.map { $0 != device } ?? false
            var found = files(in: device + "/changes") { $0.hasSuffix(".jsonl") || $0.hasSuffix(".lock") }
            found += files(in: device, dataFile)
            found += files(in: device + "/logs", dataFile)
            found += files(in: device + "/store") { $0.hasSuffix(".lock") }
            found += files(in: device + "/store/backups") { _ in true }
            candidates += found.map { ($0, peers) }
        }
        for device in files(in: paths.history, { _ in true }) where POSIXFiles.irregularKind(device) == "directory" {
            let peers = ownID.map { device.split(separator: "/").last.map(String.init) != $0 } ?? false
            candidates += files(in: device) { $0.hasSuffix(".jsonl") }.map { ($0, peers) }
        }
        return candidates.compactMap { file in POSIXFiles.irregularKind(file.path).map { (file.path, $0, file.peers) } }
            .filter { $0.kind != "symbolic link" }
    }
}
