import Domain
import FoundationEssentials
#if canImport(Glibc)
import Glibc
#endif

/// The checks of what the Auth context, the hooks and interrupted writers
/// keep in the data directory.
extension DataDirectoryHealth {
    func auditCheck() async -> HealthCheck {
        let path = paths.audit
        guard FileManager.default.fileExists(atPath: path) else {
            return HealthCheck(name: "audit trail", status: .ok, detail: "no passcode attempts yet")
        }
        let health: (entries: [AuditEntry], lines: Int)
        do { health = try await JSONLinesAuditTrail(path: path).health() } catch {
            return HealthCheck(name: "audit trail", status: .warning, detail: "\(error)")
        }
        let lines = health.lines, entries = health.entries.count
        guard entries == lines else {
            return HealthCheck(name: "audit trail", status: .warning, detail: "\(entries) entries; \(lines - entries) unreadable line(s) skipped")
        }
        return HealthCheck(name: "audit trail", status: .ok, detail: "\(entries) entr\(entries == 1 ? "y" : "ies")")
    }

    /// This device's id, which names the history folder it writes: damaged,
    /// no session can go to history (and an ending stays unfinished).
    func deviceCheck(_ repairing: Bool) -> HealthCheck {
        let identity = DeviceIdentity(file: paths.deviceID, legacyFile: paths.legacyDeviceID)
        switch identity.check() {
        case .success(nil): return HealthCheck(name: "device id", status: .ok, detail: "none yet (made with the first session)")
        case .success(let id?): return HealthCheck(name: "device id", status: .ok, detail: id)
        case .failure(let error):
            guard repairing else {
                return HealthCheck(name: "device id", status: .error,
                                   detail: "\(error); sessions cannot be written to history until it is repaired")
            }
            do {
                let done = try identity.repair(historyDirectory: paths.history)
                let how = done.recovered ? "recovered \(done.id) from the history folder it named" : "made a new id \(done.id)"
                return HealthCheck(name: "device id", status: .repaired, detail: "moved the damaged file to \(done.movedTo); \(how)")
            } catch {
                return HealthCheck(name: "device id", status: .error, detail: "\(error)")
            }
        }
    }

    /// A setting as stored, if it can be read.
    private func setting(_ key: SettingKey) -> String {
        ((try? StoreSettings.snapshot(of: folder ?? store, dataDirectory: paths.root)) ?? Settings(stored: [:], dataDirectory: paths.root))[key]
    }

    /// Temp files that writers killed mid-write left in the store and beside
    /// the hosts file. Only those a minute old or more: a younger one may be
    /// another process's write in progress, which removing would break.
    func tempFileChecks(_ repairing: Bool) -> [HealthCheck] {
        let hosts = HostsFileShield(path: setting(.shieldHostsFile))
        let stores = paths.deviceStore == nil ? [store] : [store, legacy]
        return [("temp files", stores.flatMap { $0.strayTempFiles() }), ("hosts file copies", hosts.strayTempFiles())].compactMap { name, strays in
            guard !strays.isEmpty else { return nil }
            let what = "\(strays.count) left by interrupted writes (\(strays.prefix(3).joined(separator: ", "))\(strays.count > 3 ? ", ..." : ""))"
            guard repairing else { return HealthCheck(name: name, status: .warning, detail: what) }
            let left = strays.filter { unlink($0) != 0 }
            guard left.isEmpty else { return HealthCheck(name: name, status: .warning, detail: what + "; cannot remove \(left.count)") }
            return HealthCheck(name: name, status: .repaired, detail: what + ", removed")
        }
    }

    /// Each file in the hooks directory: a hook that would not run, or a
    /// name that is no event (a typo would silently never run), is a warning.
    func hooksCheck(_ repairing: Bool) -> HealthCheck {
        let directory = setting(.hooksDir)
        if let problem = ProcessEventHooks.problem(withDirectory: directory) {
            // Repaired only when it is ours: then taking write access from
            // group and others is safe; a directory of another user is not ours to change.
            var status = stat()
            if repairing, stat(directory, &status) == 0, status.st_uid == geteuid(),
               chmod(directory, mode_t(status.st_mode & 0o7777) & ~mode_t(S_IWGRP | S_IWOTH)) == 0 {
                return HealthCheck(name: "hooks", status: .repaired, detail: "\(directory) was writable by others; now it is not")
            }
            return HealthCheck(name: "hooks", status: .warning, detail: problem + "; no hook there runs until then")
        }
        let files = ((try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? []).filter { !$0.hasPrefix(".") }.sorted()
        guard !files.isEmpty else { return HealthCheck(name: "hooks", status: .ok, detail: "none in \(directory)") }
        let events = Set(SessionEvent.Kind.allCases.map(\.rawValue))
        var problems: [String] = []
        for file in files {
            if !events.contains(file) {
                problems.append("\(file) is not an event (\(events.sorted().joined(separator: ", ")))")
            } else if let problem = ProcessEventHooks.problem(with: directory + "/" + file) {
                problems.append("\(file): \(problem)")
            }
        }
        guard problems.isEmpty else { return HealthCheck(name: "hooks", status: .warning, detail: problems.joined(separator: "; ")) }
        return HealthCheck(name: "hooks", status: .ok, detail: "\(files.joined(separator: ", ")) in \(directory)")
    }
}
