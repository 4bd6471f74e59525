import Adapters
import Domain
import FoundationEssentials
#if canImport(Glibc)
import Glibc
#endif

/// Where and how the system service runs (`retime system run`'s options).
struct SystemOptions: Sendable {
    var socket = ShieldClient.defaultSocket
    var stateDirectory = "/var/lib/retime"
    var hostsFile = "/etc/hosts"
    var firewall = Firewall.auto
    var apps = true
    var names = Names.auto
    /// How long a connection may take to send its whole request.
    var requestTimeout = ShieldProtocol.requestTimeout

    enum Firewall: String, Sendable {
        case auto, nftables, off
    }

    /// How names are blocked: the name layer (the service's resolver, for
    /// the blocking user alone), or the machine-wide hosts file.
    enum Names: String, Sendable {
        case auto, resolver, hosts
    }
}

/// The system service's composition root: only what enforcement needs (the
/// clock, its own store in the root-owned state directory, the blocks it
/// holds, the hosts layer and the request handler), nothing of a user's
/// data. Privilege separation: small enough to audit. Its entry resolves
/// one `ShieldWork`; `CompositionRootTests` validates the whole graph.
enum SystemRoot {
    static func container(_ options: SystemOptions, context: RuntimeContext) -> Container {
        Container(registry(options, context: context))
    }

    /// What the service's work uses of `container`, built now. A layer
    /// that refuses to run as asked (`--firewall nftables` without nft)
    /// is reported as itself, with its code and hint.
    static func work(_ container: Container) throws -> ShieldWork {
        do { return try container.resolve(ShieldWork.self) } catch .factoryFailed(_, _, let refusal as SystemServiceError) { throw refusal }
    }

    static func registry(_ options: SystemOptions, context: RuntimeContext) -> Registry {
        var registry = Registry()
        registry.register((any RetimeShared.Clock).self, value: SystemClock())
        registry.register(Logger.self, value: Logger(label: "retime.shield",
                                                     handler: StreamLogHandler.standardError(level: context.logLevel, environment: context.environment)))
        registry.register((any KeyValueStore).self, lifetime: .singleton) { _ in JSONFileStore(directory: options.stateDirectory) }
        registry.register((any HeldBlockStore).self, lifetime: .singleton) { StoreHeldBlockStore(store: try $0.resolve()) }
        registry.register([any BlockLayer].self, lifetime: .singleton) { resolver in
            try nameLayers(options, logger: try resolver.resolve(), environment: context.environment) + [
             try firewallLayer(options, clock: try resolver.resolve(), logger: try resolver.resolve(), environment: context.environment,
                               memory: ResolvedAddressMemory(store: try resolver.resolve())),
             appLayer(options, logger: try resolver.resolve())]
        }
        // One record of the layers' failures for the service's passes and
        // its answers alike.
        registry.register(LayerHealth.self, value: LayerHealth())
        registry.register {
            // Each user's allowance spending in the service's own state
            // (`users/UID/`), beside the passcode it keeps for them.
            HeldBlocks(store: try $0.resolve(), layers: try $0.resolve(), clock: try $0.resolve(), logger: try $0.resolve(),
                       health: try $0.resolve(),
                       allowances: { uid in StoreAllowanceLedger(store: JSONFileStore(directory: options.stateDirectory + "/users/\(uid)")) },
                       zone: { SystemTimeZone.current(context.environment).rules })
        }
        registry.register(ShieldRequestHandler.self) { resolver in
            let clock = try resolver.resolve((any RetimeShared.Clock).self)
            let held = try resolver.resolve((any HeldBlockStore).self)
            return ShieldRequestHandler(blocks: try resolver.resolve(), clock: clock, passcodes: { uid in passcodeBook(uid, options: options, held: held, clock: clock) })
        }
        registry.register {
            ShieldWork(logger: try $0.resolve(), blocks: try $0.resolve(), handler: try $0.resolve(), layers: try $0.resolve())
        }
        return registry
    }

    /// Lifts every block the stopped service held, as a root release does
    /// (each stays on record as released), through the same layers: what
    /// `system uninstall` leaves is no hosts block and no firewall table,
    /// even when the service was not running to lift them itself.
    static func releaseEverything(_ options: SystemOptions, context: RuntimeContext) async throws -> [HeldBlock] {
        // Never beside a service still running on the same state: the two
        // would enforce different things.
        let lock = try DaemonLock(dataDirectory: options.stateDirectory).acquire()
        defer { lock.release() }
        var offline = options
        offline.apps = false   // nothing of the app layer outlives the service
        let services = container(offline, context: context)
        let released = try await services.resolve(HeldBlocks.self).release(uid: nil, by: 0)
        await services.teardown()
        return released
    }

    /// The firewall layer as `--firewall` asks: nftables, when `nft` runs
    /// and the kernel takes a table (`auto` says why not and goes on
    /// without it; `nftables` refuses to start without it).
    /// `RETIME_FIREWALL_MINIMUM_TTL` shortens the re-resolution interval's
    /// lower bound (tests follow a changing DNS answer in seconds). What it
    /// resolved is kept in the service's store (`memory`) for the next boot.
    static func firewallLayer(_ options: SystemOptions, clock: any RetimeShared.Clock, logger: Logger,
                              environment: [String: String], memory: ResolvedAddressMemory? = nil) throws -> any BlockLayer {
        guard options.firewall != .off else { return UnavailableLayer(name: "firewall", reason: "turned off (--firewall off)") }
        let reason: String
        if let filter = NftablesFilter.system() {
            if let refusal = filter.probe() { reason = refusal } else {
                let minimum = environment["RETIME_FIREWALL_MINIMUM_TTL"].flatMap(Double.init).map { max(1, $0) } ?? 60
                return FirewallLayer(resolver: DNSResolver(), filter: filter, clock: clock, logger: logger, minimumTTL: minimum, memory: memory)
            }
        } else {
            reason = "the nft command is not installed (Debian: apt-get install nftables)"
        }
        guard options.firewall == .auto else {
            throw SystemServiceError(code: "system.firewallUnavailable", message: "the firewall layer cannot run: \(reason)", exitCode: 1,
                                     hint: "install nftables, or run with --firewall auto or off")
        }
        logger.warning("the firewall layer is off: \(reason)")
        return UnavailableLayer(name: "firewall", reason: "unavailable: \(reason)")
    }

    /// The name layer and the hosts layer as `--names` asks: the service's
    /// resolver for each blocking user where nftables can redirect DNS by
    /// socket owner, the hosts file left without a block of the service's;
    /// else (`auto` says why, `resolver` refuses to start) the hosts file,
    /// which blocks every user's names for everyone.
    /// `RETIME_NAMES_UPSTREAM_PORT` is the resolvers' port (a test's own).
    static func nameLayers(_ options: SystemOptions, logger: Logger, environment: [String: String]) throws -> [any BlockLayer] {
        var reason = "turned off (--names hosts)"
        if options.names != .hosts {
            if let redirect = NameRedirect.system() {
                if let refusal = redirect.probe() { reason = "unavailable: \(refusal)" } else {
                    let port = environment["RETIME_NAMES_UPSTREAM_PORT"].flatMap(UInt16.init) ?? 53
                    do {
                        let names = try NameLayer(redirect: redirect, logger: logger, upstreamPort: port)
                        return [names, HostsLayer(path: options.hostsFile, retired: "the names layer blocks names for the blocking user alone")]
                    } catch {
                        reason = "unavailable: \(error)"
                    }
                }
            } else {
                reason = "unavailable: the nft command is not installed (Debian: apt-get install nftables)"
            }
            guard options.names == .auto else {
                throw SystemServiceError(code: "system.namesUnavailable", message: "the name layer cannot run: \(reason)", exitCode: 1,
                                         hint: "install nftables, or run with --names auto or hosts")
            }
            logger.warning("the name layer is off; the hosts file blocks names for every user: \(reason)")
        }
        return [UnavailableLayer(name: "names", reason: reason + "; the hosts file blocks names instead, for every user"),
                HostsLayer(path: options.hostsFile)]
    }

    /// The app layer as `--apps` asks, on process events where they reach
    /// the service, else reading /proc.
    static func appLayer(_ options: SystemOptions, logger: Logger) -> any BlockLayer {
        guard options.apps else { return UnavailableLayer(name: "apps", reason: "turned off (--apps off)") }
        let (works, reason) = AppLayer.probeProcessEvents()
        if !works { logger.warning("apps: \(reason)") }
        return AppLayer(logger: logger, eventsReachUs: works, reason: reason)
    }

    /// One user's passcode, as the service keeps it: the Auth context's use
    /// cases over that user's own store and audit trail in the state
    /// directory (`users/UID/`), with the same hashing, lockout and audit
    /// as a user's data has. No passcode can be set while the service holds
    /// a strict block of that user's.
    static func passcodeBook(_ uid: UInt32, options: SystemOptions, held: any HeldBlockStore, clock: any RetimeShared.Clock) -> ServicePasscodeBook {
        let directory = options.stateDirectory + "/users/\(uid)"
        let state = StoreAuthState(store: JSONFileStore(directory: directory))
        // Capped and summarised: its size is not the user's to decide.
        let audit = CappedAuditTrail(path: directory + "/audit.jsonl")
        let lock = FileDataLock(storeDirectory: directory)
        #if os(Linux)
        let hasher: any PasscodeHasher = CryptPasscodeHasher()
        #else
        let hasher: any PasscodeHasher = PBKDF2PasscodeHasher()
        #endif
        return ServicePasscodeBook(
            set: SetPasscodeUseCase(state: state, hasher: hasher, audit: audit, clock: clock,
                                    strict: HeldStrictBlockQuery(store: held, uid: uid, clock: clock), dataLock: lock,
                                    enforcer: NoEnforcerPasscodes()),
            change: ChangePasscodeUseCase(state: state, hasher: hasher, audit: audit, clock: clock, dataLock: lock,
                                          enforcer: NoEnforcerPasscodes()),
            verify: VerifyPasscodeUseCase(state: state, hasher: hasher, audit: audit, clock: clock), state: state)
    }
}
