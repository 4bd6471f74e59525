import Adapters
import Domain
import FoundationEssentials
#if canImport(Glibc)
import Glibc
#endif

/// The shields this machine has, by config key `shield` (and
/// `shield.hostsFile`): what a new block uses is read from the configuration
/// at each start, and a session's own block is found by the identity it
/// recorded, so a changed configuration never strands a block.
struct ConfiguredShields: ShieldDirectory {
    let store: any KeyValueStore
    /// The container's settings, or why they could not be read: the
    /// directory is built either way (doctor reports on damaged settings),
    /// and what needs them throws then.
    let settings: Result<Settings, any Error>
    let logger: Logger
    /// The data directory, as the owner of the blocks its sessions raise in
    /// machine-wide files (the hosts file).
    let dataDirectory: String
    /// Where the system service listens (`$RETIME_SHIELD_SOCKET`, else the default).
    let socketPath: String
    /// This device's id, if it has one yet (asked when a session's shield is looked up).
    var thisDevice: @Sendable () -> String? = { nil }

    var device: String? { thisDevice() }

    func configured() throws -> any Shield { try configuredProbe() }

    /// The value of config key `shield` (`auto` when unset).
    func configuredName() throws -> String { try settings.get().shield }

    /// The configured shield, which also answers for its own authorization.
    func configuredProbe() throws -> any Shield & ShieldAuthorizationProbe {
        let configured = try configuredName()
        switch configured {
        case "none": return RecordingShield(store: store, logger: logger)
        case "system": return SystemShield(socketPath: socketPath, unlock: try settings.get().unlock)
        case "auto":
            // The service wherever it is installed, answering or not: a
            // block that cannot reach it fails and says so, never starts
            // with nothing blocked. Without it nothing is enforced, and
            // start says so.
            return serviceInstalled ? SystemShield(socketPath: socketPath, unlock: try settings.get().unlock)
                : RecordingShield(store: store, logger: logger)
        case "hosts":
            return HostsFileShield(path: try settings.get().hostsFile, owner: owner)
        default:
            throw SettingError.invalidValue(key: SettingKey.shield.rawValue, value: configured,
                                            reason: "this retime knows the shields: " + SettingKey.shields.joined(separator: ", "))
        }
    }

    /// Whether the system service is installed for this socket (it may
    /// not answer now).
    var serviceInstalled: Bool { SystemServicePresence.isInstalled(socketPath: socketPath) }

    /// `shield test`'s view: for the hosts shield its hosts file holds the
    /// user's targets; for any other, the system service's layers do.
    func inspector() throws -> any ShieldInspector {
        let configured = try configuredName()
        guard configured == "hosts" else { return LiveShieldInspector(socketPath: socketPath, holder: .service(shield: configured)) }
        return LiveShieldInspector(socketPath: socketPath, holder: .hostsFile(try settings.get().hostsFile))
    }

    /// The data directory's real path: one directory reached by two paths
    /// (a symlink) is one owner.
    private var owner: String {
        guard let real = realpath(dataDirectory, nil) else { return dataDirectory }
        defer { free(real) }
        return String(cString: real)
    }

    /// Where the user's passcode must also be set: the system service, when
    /// it is the shield new blocks use (asked when a passcode changes, not
    /// when the services are built).
    var enforcerPasscodes: any EnforcerPasscodes { ConfiguredEnforcerPasscodes(shields: self) }

    func shield(identity: String) throws -> any Shield {
        if identity == RecordingShield.identity { return RecordingShield(store: store, logger: logger) }
        if identity.hasPrefix(SystemShield.identityPrefix) {
            let socket = String(identity.dropFirst(SystemShield.identityPrefix.count))
            // Removed on purpose (`system uninstall` lifted its blocks):
            // nothing to lower or raise, and no command fails for it.
            guard SystemServicePresence.isInstalled(socketPath: socket) else { return RemovedServiceShield(identity: identity) }
            return SystemShield(socketPath: socket)
        }
        if identity.hasPrefix(HostsFileShield.identityPrefix) {
            return HostsFileShield(path: String(identity.dropFirst(HostsFileShield.identityPrefix.count)), owner: owner)
        }
        throw SettingError.invalidValue(key: SettingKey.shield.rawValue, value: identity,
                                        reason: "a session names a shield this retime does not know")
    }
}

/// The enforcer of the configured shield, decided at each change.
private struct ConfiguredEnforcerPasscodes: EnforcerPasscodes {
    let shields: ConfiguredShields

    private func enforcer() throws -> any EnforcerPasscodes {
        guard let system = try shields.configured() as? SystemShield else { return NoEnforcerPasscodes() }
        return SystemPasscodes(socketPath: system.client.socketPath)
    }

    func passcodeState() async throws -> EnforcerPasscodeState? { try await enforcer().passcodeState() }
    func set(_ passcode: Passcode) async throws { try await enforcer().set(passcode) }
    /// Always the service: only when it holds the passcode is one checked
    /// here, whatever the shield is now (unreachable, it says so).
    func verify(_ passcode: Passcode, action: String) async throws {
        try await SystemPasscodes(socketPath: shields.socketPath).verify(passcode, action: action)
    }
    func change(from current: Passcode, to new: Passcode) async throws { try await enforcer().change(from: current, to: new) }
    func remove(_ current: Passcode) async throws { try await enforcer().remove(current) }
}
