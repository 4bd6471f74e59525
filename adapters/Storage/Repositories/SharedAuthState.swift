import Domain
import FoundationEssentials
import JSONDocument

/// The Auth context's state in a data folder shared by devices: the
/// passcode's hash is the newest record of every device's
/// `passcode.json` (`SharedPasscodes`), the rest (wrong attempts, the lock,
/// the shield's authorization, whether this machine's system service holds
/// its passcode) is this machine's, in its `auth` suite.
///
/// Why the rest stays: a lockout is about guessing on this machine, and
/// the authorization is this machine's shield's. A machine whose system
/// service holds the passcode keeps that one (its hash is never in the
/// person's files, so it cannot travel with them): the shared hash is not
/// its passcode then. Handing this device's own hash to the service
/// withdraws it from the shared folder (a removal at the same stamp);
/// another device's hash is theirs and stays.
///
/// A hash an older retime kept in the `auth` suite counts as this
/// device's record, stamped with the time that file was last written
/// (`legacyWrittenAt`), and the first write moves it to this device's
/// `passcode.json` with that same stamp: no reader's answer changes by
/// the move.
public struct SharedAuthState: AuthStateStore {
    private let local: StoreAuthState
    private let store: any KeyValueStore
    private let passcodes: SharedPasscodes
    private let legacyWrittenAt: @Sendable () -> Date?
    private let now: @Sendable () -> Date

    /// `store` holds this machine's `auth` suite; `legacyWrittenAt` says
    /// when its file was last written (nil: unknown, the oldest time).
    public init(store: any KeyValueStore, passcodes: SharedPasscodes, legacyWrittenAt: @escaping @Sendable () -> Date? = { nil },
                now: @escaping @Sendable () -> Date = { Date() }) {
        self.local = StoreAuthState(store: store)
        self.store = store
        self.passcodes = passcodes
        self.legacyWrittenAt = legacyWrittenAt
        self.now = now
    }

    /// The state of a data folder's store: the machine's `auth` suite file
    /// gives the stamp of a hash an older retime left there.
    public static func dataFolder(store: DataFolderStore, devices: String, deviceID: @escaping @Sendable () throws -> String,
                                  now: @escaping @Sendable () -> Date = { Date() }) -> SharedAuthState {
        SharedAuthState(store: store, passcodes: SharedPasscodes(devices: devices, deviceID: deviceID), legacyWrittenAt: {
            guard let path = try? store.local().path(of: StoreAuthState.suite),
                  let stamp = try? POSIXFiles.FileStamp.current(path) else { return nil }
            return Date(timeIntervalSince1970: Double(stamp.modifiedNanoseconds) / 1e9)
        }, now: now)
    }

    public func state() async throws -> AuthState {
        let machine = try await local.state()
        return present(machine, passcode: try current(machine, reading: try passcodes.read()))
    }

    public func passcodeOrigin() async throws -> PasscodeOrigin? {
        let machine = try await local.state()
        guard machine.passcodeHeldByEnforcer != true, let record = try current(machine, reading: try passcodes.read()) else { return nil }
        return passcodes.origin(of: record)
    }

    public func update<Result: Sendable>(_ body: (inout AuthState) throws -> Result) async throws -> Result {
        var forgotHash = false
        // The machine's suite lock orders this device's writers; another
        // device's change is merged by the clock, never locked against.
        let result = try store.update(StoreAuthState.suite) { values in
            let machine = try values[StoreAuthState.key].map { try JSONValueCoding.decode(AuthState.self, from: $0, key: StoreAuthState.key) }
                ?? AuthState()
            let reading = try passcodes.read()
            let legacy = try legacyRecord(machine)
            let passcode = try current(machine, reading: reading)
            let before = present(machine, passcode: passcode)
            var after = before
            let result = try body(&after)
            var newest = passcode, written: String?
            if after.passcodeHeldByEnforcer != true {
                if after.passcodeHash != before.passcodeHash {
                    var clock = HybridClock(device: try passcodes.thisDevice())
                    for seen in [reading.newest, legacy].compactMap({ $0 }) { clock.observe(seen.at) }
                    let record = PasscodeRecord(hash: after.passcodeHash, at: clock.tick(now: now()))
                    written = try passcodes.write(record)
                    newest = record
                } else if let legacy, legacy == passcode {
                    // The older retime's hash is the passcode in force: it
                    // moves, with its stamp, so every reader's answer stays.
                    written = try passcodes.write(legacy)
                }
            } else if let passcode, passcode.hash != nil, passcode == reading.own {
                // This device's passcode, handed to its system service: the
                // hash leaves the shared folder (issue 28: none in the
                // person's files), as a removal at the stamp it had, so no
                // older passcode of another device comes back by it.
                let withdrawn = PasscodeRecord(hash: nil, at: passcode.at)
                written = try passcodes.write(withdrawn)
                newest = withdrawn
            }
            if let newest { try passcodes.dropSuperseded(reading, newest: newest.at, keeping: written) }
            var kept = after
            kept.passcodeHash = nil
            forgotHash = machine.passcodeHash != nil
            if kept != machine { values[StoreAuthState.key] = try JSONValueCoding.encode(kept, key: StoreAuthState.key) }
            return result
        }
        // A hash an older retime kept here must not live on in the
        // machine's backups once it is gone from the suite.
        if forgotHash { try store.discardBackups(of: StoreAuthState.suite) }
        return result
    }

    /// The machine's state with the shared passcode in it: none while this
    /// machine's system service holds its own.
    private func present(_ machine: AuthState, passcode: PasscodeRecord?) -> AuthState {
        var state = machine
        state.passcodeHash = machine.passcodeHeldByEnforcer == true ? nil : passcode?.hash
        return state
    }

    /// The passcode in force: the newest of every device's records and a
    /// hash an older retime left in this machine's suite.
    private func current(_ machine: AuthState, reading: SharedPasscodes.Reading) throws -> PasscodeRecord? {
        let legacy = try legacyRecord(machine)
        return [reading.newest, legacy].compactMap { $0 }.max { $0.at < $1.at }
    }

    private func legacyRecord(_ machine: AuthState) throws -> PasscodeRecord? {
        guard let hash = machine.passcodeHash else { return nil }
        let millis = legacyWrittenAt().map { Int64(($0.timeIntervalSince1970 * 1_000).rounded(.down)) } ?? 0
        return PasscodeRecord(hash: hash, at: HybridTimestamp(milliseconds: max(0, millis), device: try passcodes.thisDevice()))
    }
}
