#if canImport(Glibc)
import Synchronization
#endif

/// This device's id, read (or made) once per process and then remembered:
/// a command asks for it from five places (its folder, its history, the
/// shield's record, sync status, the passcode), and each asking read the
/// id's file again, 23 k instructions a time. An id that cannot be read is
/// not remembered, so the next asking tries again (and `doctor` sees the
/// damage).
public final class RememberedDeviceID: Sendable {
    /// Where the id is kept.
    public let identity: DeviceIdentity
    private let known = Mutex<String?>(nil)

    public init(_ identity: DeviceIdentity) {
        self.identity = identity
    }

    /// The id, read or made the first time (`DeviceIdentity.loadOrCreate`).
    public func id() throws -> String {
        try known.withLock { known in
            if let known { return known }
            let id = try identity.loadOrCreate()
            known = id
            return id
        }
    }
}
