import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// What one device's copy of the data folder says has ended, read from
/// the files themselves (as a person with `grep` would), not through
/// retime: every history line's session, and in every slot log each
/// session a delete removed for good (`ends`) or a value shows ended
/// (`endedAt`). A device whose files say a session ended must never raise
/// its block again.
final class FleetEvidence {
    private struct Parsed {
        var size: Int
        /// Its change time, in nanoseconds.
        var modified: Int
        var ended: Set<String>
        /// A history file's sessions that completed.
        var completed: Set<String>
        /// The latest stamp's wall part (ms) of a slot log's lines.
        var latest: Double
    }

    private var cache: [String: Parsed] = [:]

    /// The ids of the sessions `device`'s folder shows ended.
    func ended(in device: FleetDevice) -> Set<String> {
        var ended = Set<String>()
        for (path, isHistory) in files(of: device) {
            ended.formUnion(read(path, history: isHistory).ended)
        }
        return ended
    }

    /// The latest stamp (its wall part, ms) of any slot line in a device's
    /// folder, its own and every other device's.
    func latestSlotStamp(in device: FleetDevice) -> Double {
        files(of: device).filter { !$0.1 }.map { read($0.0, history: false).latest }.max() ?? 0
    }

    /// The ids of the sessions this device itself recorded in its history
    /// as completed (each with the device's folder file it is in).
    func completed(by device: FleetDevice) -> Set<String> {
        var ids = Set<String>()
        let folder = device.data + "/history/" + device.id
        for name in Self.names(in: folder) where name.hasSuffix(".jsonl") && name != "amendments.jsonl" {
            ids.formUnion(read(folder + "/" + name, history: true).completed)
        }
        return ids
    }

    private func files(of device: FleetDevice) -> [(String, Bool)] {
        var found: [(String, Bool)] = []
        for id in Self.names(in: device.data + "/history") {
            let folder = device.data + "/history/" + id
            for name in Self.names(in: folder) where name.hasSuffix(".jsonl") && !name.hasPrefix("amendments") {
                found.append((folder + "/" + name, true))
            }
        }
        for id in Self.names(in: device.data + "/devices") {
            let folder = device.data + "/devices/" + id + "/changes"
            for name in Self.names(in: folder) where name.hasPrefix("session") && name.hasSuffix(".jsonl") {
                found.append((folder + "/" + name, false))
            }
        }
        return found
    }

    /// The names in `folder` (none when it is not one): `readdir`, which
    /// the simulation calls for every device after every step.
    static func names(in folder: String) -> [String] {
        guard let directory = opendir(folder) else { return [] }
        defer { closedir(directory) }
        var names: [String] = []
        while let entry = readdir(directory) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
            if name != ".", name != ".." { names.append(name) }
        }
        return names
    }

    private func read(_ path: String, history: Bool) -> Parsed {
        var info = stat()
        guard lstat(path, &info) == 0, info.st_mode & S_IFMT == S_IFREG, info.st_size < 8 << 20 else {
            return Parsed(size: 0, modified: 0, ended: [], completed: [], latest: 0)
        }
        let size = Int(info.st_size), modified = info.st_mtim.tv_sec * 1_000_000_000 + info.st_mtim.tv_nsec
        if let parsed = cache[path], parsed.size == size, parsed.modified == modified { return parsed }
        var ended = Set<String>(), completed = Set<String>(), latest: Double = 0
        guard let data = FileManager.default.contents(atPath: path) else { return Parsed(size: 0, modified: 0, ended: [], completed: [], latest: 0) }
        for line in data.split(separator: 0x0A) {
            // A slot line's stamp is its first member (as `ChangeLine`
            // writes it); only a line that may end a session is parsed.
            if !history, let milliseconds = Self.stampMilliseconds(line) { latest = max(latest, milliseconds) }
            guard history || Self.mayEnd(line),
                  let object = try? JSONSerialization.jsonObject(with: Data(line)) as? [String: Any] else { continue }
            if history {
                if let id = object["id"] as? String, object["deleted"] == nil { ended.insert(id) }
                if let id = object["id"] as? String, object["outcome"] as? String == "completed" { completed.insert(id) }
            } else if let id = object["ends"] as? String {
                ended.insert(id)
            } else if let value = object["value"] as? [String: Any], value["endedAt"] is String, let id = value["id"] as? String {
                ended.insert(id)
            }
        }
        let parsed = Parsed(size: size, modified: modified, ended: ended, completed: completed, latest: latest)
        cache[path] = parsed
        return parsed
    }

    private static let stampPrefix = Array(#"{"at":""#.utf8)
    private static let endsKey = Array(#""ends""#.utf8), endedAtKey = Array(#""endedAt""#.utf8)

    /// The wall part (ms) of a slot line's stamp, read without parsing it.
    static func stampMilliseconds(_ line: Data.SubSequence) -> Double? {
        guard line.starts(with: stampPrefix) else { return nil }
        let digits = line.dropFirst(stampPrefix.count).prefix { $0 >= 0x30 && $0 <= 0x39 }
        return digits.isEmpty ? nil : Double(String(decoding: digits, as: UTF8.self))
    }

    /// Whether a slot line names `ends` or `endedAt`: the only ones that can end a session.
    static func mayEnd(_ line: Data.SubSequence) -> Bool {
        let bytes = Array(line)
        return contains(bytes, endsKey) || contains(bytes, endedAtKey)
    }

    private static func contains(_ bytes: [UInt8], _ needle: [UInt8]) -> Bool {
        guard bytes.count >= needle.count else { return false }
        for start in 0...(bytes.count - needle.count) where bytes[start] == needle[0] {
            if bytes[start..<start + needle.count].elementsEqual(needle) { return true }
        }
        return false
    }

    /// The newest stamp (its wall part, ms) of each group in any groups
    /// log of `device`'s folder, conflict copies included.
    static func groupStamps(in device: FleetDevice) -> [String: Double] {
        var newest: [String: Double] = [:]
        for id in names(in: device.data + "/devices") {
            let folder = device.data + "/devices/" + id + "/changes"
            for name in names(in: folder) where name.hasPrefix("groups") && name.hasSuffix(".jsonl") {
                for object in objects(folder + "/" + name) {
                    guard let key = object["key"] as? String, let at = object["at"] as? String,
                          let milliseconds = Double(at.prefix { $0 != "-" }) else { continue }
                    newest[key] = max(newest[key] ?? 0, milliseconds)
                }
            }
        }
        return newest
    }

    /// The last session value a device wrote to its slot log: id, planned
    /// end and strictness.
    static func lastSlotValue(of device: FleetDevice) -> (id: String, plannedEnd: Date?, strict: Bool)? {
        guard let value = objects(device.data + "/devices/" + device.id + "/changes/session.jsonl").last(where: { $0["value"] != nil })?["value"]
                as? [String: Any], let id = value["id"] as? String else { return nil }
        let plannedEnd = (value["plannedEnd"] as? String).flatMap { ISO8601DateFormatter.fleet.date(from: $0) }
        return (id, plannedEnd, value["strict"] as? Bool ?? false)
    }

    static func objects(_ path: String) -> [[String: Any]] {
        guard let data = FileManager.default.contents(atPath: path) else { return [] }
        return data.split(separator: 0x0A).compactMap { try? JSONSerialization.jsonObject(with: Data($0)) as? [String: Any] }
    }
}

extension ISO8601DateFormatter {
    /// The store's instants, to the millisecond.
    nonisolated(unsafe) static let fleet: ISO8601DateFormatter = {
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        return formatter
    }()
}
