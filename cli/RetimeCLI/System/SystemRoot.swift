import Adapters
import Domain
import Foundation

/// Where and how the system service runs (`retime system run`'s options).
struct SystemOptions: Sendable {
    var socket = ShieldClient.defaultSocket
    var stateDirectory = "/var/lib/retime"
    var hostsFile = "/etc/hosts"
}

/// The system service's composition root: only what enforcement needs (the
/// clock, its own store in the root-owned state directory, the blocks it
/// holds, the hosts layer and the request handler), nothing of a user's
/// data. Privilege separation: small enough to audit.
enum SystemRoot {
    static func container(_ options: SystemOptions, context: RuntimeContext) throws -> Container {
        var registry = Registry()
        registry.register((any Domain.Clock).self, value: SystemClock())
        registry.register(Logger.self, value: Logger(label: "retime.shield",
                                                     handler: StreamLogHandler.standardError(level: context.logLevel, environment: context.environment)))
        registry.register((any KeyValueStore).self, lifetime: .singleton) { _ in JSONFileStore(directory: options.stateDirectory) }
        registry.register((any HeldBlockStore).self, lifetime: .singleton) { StoreHeldBlockStore(store: try $0.resolve()) }
        registry.register([any BlockLayer].self, value: [HostsLayer(path: options.hostsFile)])
        registry.register(HeldBlocks.self) {
            HeldBlocks(store: try $0.resolve(), layers: try $0.resolve(), clock: try $0.resolve(), logger: try $0.resolve())
        }
        registry.register(ShieldRequestHandler.self) {
            ShieldRequestHandler(blocks: try $0.resolve(), layers: try $0.resolve([any BlockLayer].self).map(\.name), clock: try $0.resolve())
        }
        let container = Container(registry)
        try container.validate()
        return container
    }
}
