import Adapters
import Domain
import FoundationEssentials
#if canImport(Glibc)
import Glibc
#endif

/// The system service's work as a service of its group: restores every
/// block before it listens, then serves requests and lifts each block at
/// its end until the group stops it, after which the blocks' progress is
/// written. It resolves nothing: the root hands it its `ShieldWork`.
struct ShieldService: Service {
    let name = "shield"
    let options: SystemOptions
    let environment: [String: String]
    let work: @Sendable () throws -> ShieldWork

    func run() async throws {
        let work = try work()
        let logger = work.logger, blocks = work.blocks, handler = work.handler
        // Restored before anyone can ask: a reboot does not lift a block.
        // A layer that fails is retried by the pass; state that cannot be
        // read is retried too: exiting would leave whatever a layer holds
        // in force with no service to lift it (and systemd gives up on a
        // unit that fails to start five times).
        var first: Date?
        do { first = try await blocks.pass() } catch {
            logger.error("the blocks cannot be read; retrying every minute", metadata: ["error": "\(error)"])
            first = Date().addingTimeInterval(60)
        }
        // The group owns the signals: its shutdown ends the loop as TERM did.
        let loop = try ShieldServiceLoop(socketPath: options.socket, watchedFiles: [options.hostsFile], catchingSignals: false,
                                         requestTimeout: options.requestTimeout)
        // Blocks restored, socket open: logins may begin (Type=notify).
        ServiceReadiness.announce(environment: environment)
        logger.notice("serving", metadata: ["socket": "\(options.socket)", "state": "\(options.stateDirectory)", "hosts": "\(options.hostsFile)"])
        let sources = work.layers.compactMap { $0 as? any ServiceEventSource }
        await ServiceLifecycle.withHandlers(onShutdown: { loop.shutDown(signal: $0 ?? SIGTERM) }) {
            // The loop blocks in poll: on a thread of its own (QueueExecutor).
            await withTaskExecutorPreference(QueueExecutor(label: "retime.shield.loop")) {
                await loop.run(sources: sources, first: .some(first), pass: {
                    do { return try await blocks.pass() } catch {
                        logger.error("a pass failed: \(error)")
                        return Date().addingTimeInterval(60)
                    }
                }, handle: { uid, line in await handler.answer(line, from: uid) })
            }
        }
        logger.notice("stopping; the blocks' progress is written")
    }
}
