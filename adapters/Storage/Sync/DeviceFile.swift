import Domain
import FoundationEssentials
import JSONDocument

/// `DATA_DIR/devices/<id>/device.json`: a device's name and what it has
/// seen of the others, `{"format":"retime.device","version":1,"name":…,
/// "seen":{"<other-id>":"<hybrid clock text>"}}`. Only its own device
/// writes it, whole and atomically; members it does not know are kept.
struct DeviceFile: Equatable {
    static let name = "device.json"
    static let format = "retime.device"
    /// A device file is a few hundred bytes; a thousand devices' seen map fits.
    static let readLimit = 256 << 10

    var deviceName: String?
    var seen: [String: HybridTimestamp] = [:]
    /// Members a newer retime may have written, kept as they were.
    var others: [String: JSONValue] = [:]

    init(deviceName: String? = nil, seen: [String: HybridTimestamp] = [:]) {
        self.deviceName = deviceName
        self.seen = seen
    }

    /// The file at `path`, nil when there is none; a damaged file is a
    /// `StoreError` naming it.
    static func read(_ path: String) throws -> DeviceFile? {
        guard let bytes = try POSIXFiles.read(path, limit: readLimit) else { return nil }
        guard case .object(var members)? = try? JSONText.parse(bytes),
              members["format"] == .string(format) else {
            throw StoreError.corrupted(path: path, reason: "not a retime device file")
        }
        var file = DeviceFile()
        switch members.removeValue(forKey: "name") {
        case .string(let name)?: file.deviceName = name
        case nil, .null?: break
        default: throw StoreError.corrupted(path: path, reason: "\"name\" is not a string")
        }
        switch members.removeValue(forKey: "seen") {
        case .object(let seen)?:
            for (device, value) in seen {
                guard HybridTimestamp.isDeviceID(device), case .string(let text) = value, let at = HybridTimestamp(text: text) else {
                    throw StoreError.corrupted(path: path, reason: "\"seen\" holds '\(device)', not a device and a clock reading")
                }
                file.seen[device] = at
            }
        case nil: break
        default: throw StoreError.corrupted(path: path, reason: "\"seen\" is not an object")
        }
        members["format"] = nil
        members["version"] = nil
        file.others = members
        return file
    }

    func write(to path: String) throws {
        var members = others
        members["format"] = .string(Self.format)
        members["version"] = .int(1)
        members["name"] = deviceName.map(JSONValue.string) ?? .null
        members["seen"] = .object(seen.mapValues { .string($0.description) })
        try POSIXFiles.ensureDirectory(POSIXFiles.parentDirectory(of: path))
        try POSIXFiles.writeAtomically(try JSONTextWriter.write(.object(members), layout: .pretty) + [0x0A], to: path)
    }
}
