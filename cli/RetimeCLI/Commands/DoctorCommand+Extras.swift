import Adapters
import Domain
import Foundation

/// The checks of what the Auth context and the hooks keep in the data
/// directory: the audit trail and the hook executables.
extension DoctorCommand {
    func auditCheck(_ data: String) async -> Check {
        let path = data + "/audit.jsonl"
        guard FileManager.default.fileExists(atPath: path) else {
            return Check(name: "audit trail", status: .ok, detail: "no passcode attempts yet")
        }
        let health: (entries: [AuditEntry], lines: Int)
        do { health = try await JSONLinesAuditTrail(path: path).health() } catch {
            return Check(name: "audit trail", status: .warning, detail: "\(error)")
        }
        let lines = health.lines, entries = health.entries.count
        guard entries == lines else {
            return Check(name: "audit trail", status: .warning, detail: "\(entries) entries; \(lines - entries) unreadable line(s) skipped")
        }
        return Check(name: "audit trail", status: .ok, detail: "\(entries) entr\(entries == 1 ? "y" : "ies")")
    }

    /// This device's id, which names the history folder it writes: damaged,
    /// no session can go to history (and an ending stays unfinished).
    func deviceCheck(_ data: String) -> Check {
        switch DeviceIdentity.check(in: data) {
        case .success(nil): return Check(name: "device id", status: .ok, detail: "none yet (made with the first session)")
        case .success(let id?): return Check(name: "device id", status: .ok, detail: id)
        case .failure(let error):
            guard repair else {
                return Check(name: "device id", status: .error, detail: "\(error); sessions cannot be written to history until it is repaired")
            }
            do {
                let done = try DeviceIdentity.repair(in: data)
                let how = done.recovered ? "recovered \(done.id) from the history folder it named" : "made a new id \(done.id)"
                return Check(name: "device id", status: .repaired, detail: "moved the damaged file to \(done.movedTo); \(how)")
            } catch {
                return Check(name: "device id", status: .error, detail: "\(error)")
            }
        }
    }

    /// Temp files that writers killed mid-write left in the store and beside
    /// the hosts file. Only those a minute old or more: a younger one may be
    /// another process's write in progress, which removing would break.
    func tempFileChecks(_ store: JSONFileStore) -> [Check] {
        let configured = try? store.value(String.self, forKey: SettingKey.shieldHostsFile.rawValue, in: StoreSettings.suite)
        let hosts = HostsFileShield(path: configured ?? SettingKey.shieldHostsFile.defaultValue(dataDirectory: ""))
        return [("temp files", store.strayTempFiles()), ("hosts file copies", hosts.strayTempFiles())].compactMap { name, strays in
            guard !strays.isEmpty else { return nil }
            let what = "\(strays.count) left by interrupted writes (\(strays.prefix(3).joined(separator: ", "))\(strays.count > 3 ? ", ..." : ""))"
            guard repair else { return Check(name: name, status: .warning, detail: what) }
            let left = strays.filter { unlink($0) != 0 }
            guard left.isEmpty else { return Check(name: name, status: .warning, detail: what + "; cannot remove \(left.count)") }
            return Check(name: name, status: .repaired, detail: what + ", removed")
        }
    }

    /// Each file in the hooks directory: a hook that would not run, or a
    /// name that is no event (a typo would silently never run), is a warning.
    func hooksCheck(_ data: String, store: JSONFileStore) -> Check {
        let configured = try? store.value(String.self, forKey: SettingKey.hooksDir.rawValue, in: StoreSettings.suite)
        let directory = configured ?? SettingKey.hooksDir.defaultValue(dataDirectory: data)
        if let problem = ProcessEventHooks.problem(withDirectory: directory) {
            // Repaired only when it is ours: then taking write access from
            // group and others is safe; a directory of another user is not ours to change.
            var status = stat()
            if repair, stat(directory, &status) == 0, status.st_uid == geteuid(),
               chmod(directory, mode_t(status.st_mode & 0o7777) & ~mode_t(S_IWGRP | S_IWOTH)) == 0 {
                return Check(name: "hooks", status: .repaired, detail: "\(directory) was writable by others; now it is not")
            }
            return Check(name: "hooks", status: .warning, detail: problem + "; no hook there runs until then")
        }
        let files = ((try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? []).filter { !$0.hasPrefix(".") }.sorted()
        guard !files.isEmpty else { return Check(name: "hooks", status: .ok, detail: "none in \(directory)") }
        let events = Set(SessionEvent.Kind.allCases.map(\.rawValue))
        var problems: [String] = []
        for file in files {
            if !events.contains(file) {
                problems.append("\(file) is not an event (\(events.sorted().joined(separator: ", ")))")
            } else if let problem = ProcessEventHooks.problem(with: directory + "/" + file) {
                problems.append("\(file): \(problem)")
            }
        }
        guard problems.isEmpty else { return Check(name: "hooks", status: .warning, detail: problems.joined(separator: "; ")) }
        return Check(name: "hooks", status: .ok, detail: "\(files.joined(separator: ", ")) in \(directory)")
    }
}
