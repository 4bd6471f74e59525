@testable import RetimeCLI
import Adapters
import Domain
import Foundation

/// `doctor --repair` in the fleet: run by a person on any device at any
/// time, and right after a device's own log is damaged. It must leave every
/// other device's files as they were (the sync tool would carry a rename or
/// a deletion to their machines), and make a damaged log of its own read
/// again without losing what that device acknowledged (checked, as every
/// write is, once the fabric settles).
extension FleetSimulation {
    /// `doctor --repair` on one device, another device's files watched.
    func repair(on index: Int, after damage: String? = nil) async throws {
        let device = devices[index]
        let before = peerFiles(in: device)
        let checks = try await device.command { try await $0.resolve(DoctorUseCase.self).execute(repairing: true) }
        let after = peerFiles(in: device)
        if before != after {
            let changed = Set(before.keys).union(after.keys).filter { before[$0] != after[$0] }.sorted()
            violated(.repairLeavesPeersAlone, "doctor --repair on m\(index) changed another device's files: \(changed.joined(separator: ", "))")
        }
        let repaired = checks.filter { $0.status == .repaired }.map(\.name)
        note("m\(index) doctor --repair" + (damage.map { " after \($0)" } ?? "") + (repaired.isEmpty ? "" : ": repaired \(repaired.joined(separator: ", "))"))
        // A damaged log of its own reads again after the repair.
        if damage != nil, let stillBroken = checks.first(where: { $0.status == .error && $0.name.hasPrefix("store") }) {
            violated(.ownDamageIsRecoverable, "m\(index) still has damage after doctor --repair: \(stillBroken.detail)")
        }
    }

    /// Damages one of a device's own change logs (an editor, a disk): all
    /// gone, garbage, or a garbage line amid good ones; then the person
    /// runs `doctor --repair`, as the command's error tells them to.
    func damageOwnLog() async throws {
        let index = random.below(devices.count)
        let device = devices[index]
        let folder = device.data + "/devices/" + device.id + "/changes"
        let names = ((try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? []).filter {
            $0.hasSuffix(".jsonl") && !$0.contains(".sync-conflict-")
        }.sorted()
        guard !names.isEmpty else { return }
        let name = names[random.below(names.count)], path = folder + "/" + name
        guard var bytes = try? Data(contentsOf: URL(fileURLWithPath: path)) else { return }
        let how: String
        switch random.below(3) {
        case 0:
            bytes = Data()
            how = "emptied"
        case 1:
            bytes = Data("garbage\u{0}\u{1}\n".utf8)
            how = "replaced by garbage"
        default:
            let lines = bytes.split(separator: 0x0A, omittingEmptySubsequences: false)
            let at = random.below(max(1, lines.count - 1))
            bytes = Data(lines.enumerated().map { $0.offset == at ? Data("{\"at\":\u{7}".utf8) : Data($0.element) }.joined(separator: [0x0A]))
            how = "given a garbage line \(at + 1)"
        }
        try bytes.write(to: URL(fileURLWithPath: path))
        // The line stamped year 4821 was put in by hand, after the last
        // good copy: a damage may take it with it.
        if name == "groups.jsonl", model.farStamped.contains(index) { model.blocked.remove("far.test") }
        try await repair(on: index, after: "its own \(name) was \(how)")
    }

    /// Every file under the other devices' folders of `device`'s data
    /// folder, with its bytes.
    private func peerFiles(in device: FleetDevice) -> [String: Data] {
        let root = device.data + "/devices"
        var files: [String: Data] = [:]
        for peer in (try? FileManager.default.contentsOfDirectory(atPath: root)) ?? [] where peer != device.id {
            guard let walker = FileManager.default.enumerator(atPath: root + "/" + peer) else { continue }
            for case let relative as String in walker {
                let path = root + "/" + peer + "/" + relative
                var isDirectory: ObjCBool = false
                guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory), !isDirectory.boolValue else { continue }
                files[peer + "/" + relative] = (try? Data(contentsOf: URL(fileURLWithPath: path))) ?? Data("unreadable".utf8)
            }
        }
        return files
    }
}
