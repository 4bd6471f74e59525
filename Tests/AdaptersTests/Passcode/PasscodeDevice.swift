import Adapters
import Domain
import Foundation
import PortContracts

/// One device of a data folder that devices share, as far as the passcode
/// goes: its state over the folder (`SharedAuthState`, as the composition
/// root builds it), and the Auth use cases over that state.
struct PasscodeDevice {
    /// No strict session runs: setting a passcode is allowed.
    struct NoStrictSession: StrictSessionQuery {
        func strictUntil() async throws -> Date? { nil }
    }

    let id: String
    let root: String
    let store: DataFolderStore
    let state: SharedAuthState
    let hasher = TestPasscodeHasher()
    let audit = InMemoryAuditTrail()
    let clock = ManualClock(now: Date())

    /// Device `id` on the folder at `root`, its hybrid clock's wall time read from `now`.
    init(root: String, id: String, now: @escaping @Sendable () -> Date = { Date() }) {
        self.id = id
        self.root = root
        store = DataFolderStore.open(root: root, deviceID: { id }, now: now)
        state = SharedAuthState.dataFolder(store: store, devices: root + "/devices", deviceID: { id }, now: now)
    }

    var verifier: VerifyPasscodeUseCase {
        VerifyPasscodeUseCase(state: state, hasher: hasher, audit: audit, clock: clock, enforcer: NoEnforcerPasscodes())
    }

    func set(_ passcode: String) async throws {
        try await SetPasscodeUseCase(state: state, hasher: hasher, audit: audit, clock: clock, strict: NoStrictSession(),
                                     dataLock: InMemoryDataLock(), enforcer: NoEnforcerPasscodes()).execute(Passcode(passcode))
    }

    var changer: ChangePasscodeUseCase {
        ChangePasscodeUseCase(state: state, hasher: hasher, audit: audit, clock: clock, dataLock: InMemoryDataLock(),
                              enforcer: NoEnforcerPasscodes())
    }

    /// The error a check of `passcode` gives, nil when it is right.
    func check(_ passcode: String) async -> AuthError? {
        do {
            try await verifier.execute(Passcode(passcode), action: "stop")
            return nil
        } catch {
            return error as? AuthError
        }
    }

    var ownFile: String { root + "/devices/\(id)/passcode.json" }

    /// Every byte under the data folder, file by file (what could be cracked offline).
    func everyFile() -> [String: String] {
        var files: [String: String] = [:]
        let enumerator = FileManager.default.enumerator(atPath: root)
        while let relative = enumerator?.nextObject() as? String {
            var isDirectory: ObjCBool = false
            let path = root + "/" + relative
            if FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory), !isDirectory.boolValue,
               let data = FileManager.default.contents(atPath: path) {
                files[relative] = String(decoding: data, as: UTF8.self)
            }
        }
        return files
    }
}
