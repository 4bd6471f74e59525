import FoundationEssentials
import RetimeShared

/// What the Sync context refuses.
public enum SyncError: RetimeError, Equatable {
    /// A device name that is empty, too long or holds control characters.
    case invalidDeviceName(String, reason: String)

    public var code: String {
        switch self {
        case .invalidDeviceName: "sync.invalidDeviceName"
        }
    }

    public var kind: ErrorKind {
        switch self {
        case .invalidDeviceName: .invalidInput
        }
    }

    public var description: String {
        switch self {
        case .invalidDeviceName(let name, let reason):
            "'\(name.unicodeScalars.map { $0.properties.generalCategory == .control ? "?" : String($0) }.joined())' is not a device name: \(reason)"
        }
    }
}
