import Domain
import FoundationEssentials
#if canImport(Glibc)
import Glibc
#endif

/// Files of the data directory that are not regular files: a FIFO, a
/// socket, a device, or a directory where retime keeps a file. retime
/// refuses them at once (`store.notRegularFile`) rather than wait on them;
/// `doctor` names them and `--repair` moves them aside, never deleting.
extension DataDirectoryHealth {
    /// The store's suite files are left to the suite checks, which restore
    /// a backup where they move one aside.
    func irregularFilesCheck(_ repairing: Bool) -> HealthCheck {
        let found = irregularFiles()
        guard !found.isEmpty else { return HealthCheck(name: "file types", status: .ok, detail: "every data file is a regular file") }
        let named = found.map { "\($0.path) is a \($0.kind)" }.joined(separator: "; ")
        guard repairing else {
            return HealthCheck(name: "file types", status: .error,
                               detail: "\(named); retime refuses to read it; run 'retime doctor --repair' to move it aside")
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
            return HealthCheck(name: "file types", status: .error, detail: "cannot move aside " + failed.joined(separator: "; "))
        }
        return HealthCheck(name: "file types", status: .repaired, detail: "moved " + moved.joined(separator: "; "))
    }

    /// Where retime keeps files: the data directory's own, the store's
    /// locks, backups and (for non-files) suites, and the history's segments.
    private func irregularFiles() -> [(path: String, kind: String)] {
        var candidates: [String] = []
        func files(in directory: String, _ keep: (String) -> Bool) -> [String] {
            POSIXFiles.names(in: directory).filter { !$0.hasPrefix(".") && !$0.contains(".corrupt-") && keep($0) }
                .sorted().map { directory + "/" + $0 }
        }
        // The device id is the device check's (its repair recovers the id).
        let dataFile: (String) -> Bool = { [".json", ".jsonl", ".lock", ".log"].contains(where: $0.hasSuffix) || $0.contains(".log.") }
        candidates += files(in: paths.root, dataFile)
        candidates += files(in: paths.root + "/logs", dataFile)
        candidates += files(in: paths.store) { $0.hasSuffix(".lock") }
        candidates += files(in: paths.store + "/backups") { _ in true }
        // Each device's change logs and their locks, and its own files
        // (its events, audit trail, logs, suites' locks and backups).
        for device in files(in: paths.root + "/devices", { _ in true }) where POSIXFiles.irregularKind(device) == "directory" {
            candidates += files(in: device + "/changes") { $0.hasSuffix(".jsonl") || $0.hasSuffix(".lock") }
            candidates += files(in: device, dataFile)
            candidates += files(in: device + "/logs", dataFile)
            candidates += files(in: device + "/store") { $0.hasSuffix(".lock") }
            candidates += files(in: device + "/store/backups") { _ in true }
        }
        for device in files(in: paths.history, { _ in true }) where POSIXFiles.irregularKind(device) == "directory" {
            candidates += files(in: device) { $0.hasSuffix(".jsonl") }
        }
        return candidates.compactMap { path in POSIXFiles.irregularKind(path).map { (path, $0) } }
            .filter { $0.kind != "symbolic link" }
    }
}
