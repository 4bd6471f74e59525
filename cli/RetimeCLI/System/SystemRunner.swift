import Adapters
import Domain
import FoundationEssentials
#if canImport(Glibc)
import Glibc
#endif

/// `retime system run`: as root, makes the state directory (0700, root's),
/// restores every block it holds before it listens, then serves requests
/// and lifts each block at its end until TERM or INT, after which the
/// blocks' progress is written and it exits 0.
struct SystemRunner {
    let options: SystemOptions
    let runtime: RuntimeContext

    func run() async throws {
        guard geteuid() == 0 else { throw SystemServiceError.notRoot }
        // Checked before it is made 0700: a chmod would hide that another
        // user could write it until now (and may have left files in it).
        if let problem = RootOwnedStateDirectory.problem(options.stateDirectory) {
            throw SystemServiceError.unsafeStateDirectory(options.stateDirectory, problem)
        }
        try POSIXFiles.ensurePrivateDirectory(options.stateDirectory)
        // One service per state directory: a second would take the socket
        // and enforce from the same state at once.
        let lock: HeldDaemonLock
        do { lock = try DaemonLock(dataDirectory: options.stateDirectory).acquire() } catch DaemonError.alreadyRunning(let pid, _) {
            throw SystemServiceError(code: "system.alreadyRunning", message: "a system service already runs with \(options.stateDirectory) (pid \(pid))",
                                     exitCode: 1, hint: nil)
        }
        defer { lock.release() }
        // A service killed mid-write left temp copies behind: gone now.
        JSONFileStore(directory: options.stateDirectory).removeTempFilesOfDeadWriters()
        HostsLayer(path: options.hostsFile).removeStrayCopies()
        let services = try SystemRoot.container(options, context: runtime)
        let logger = try services.resolve(Logger.self)
        let blocks = try services.resolve(HeldBlocks.self)
        let handler = try services.resolve(ShieldRequestHandler.self)
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
        let loop = try ShieldServiceLoop(socketPath: options.socket, watchedFiles: [options.hostsFile])
        // Blocks restored, socket open: logins may begin (Type=notify).
        ServiceReadiness.announce(environment: runtime.environment)
        logger.notice("serving", metadata: ["socket": "\(options.socket)", "state": "\(options.stateDirectory)", "hosts": "\(options.hostsFile)"])
        let sources = try services.resolve([any BlockLayer].self).compactMap { $0 as? any ServiceEventSource }
        await loop.run(sources: sources, first: .some(first), pass: {
            do { return try await blocks.pass() } catch {
                logger.error("a pass failed: \(error)")
                return Date().addingTimeInterval(60)
            }
        }, handle: { uid, line in await handler.answer(line, from: uid) })
        logger.notice("stopping; the blocks' progress is written")
        await services.teardown()
    }
}

/// What `retime system ...` refuses before any request.
struct SystemServiceError: RetimeCLIError {
    var code: String
    var message: String
    var exitCode: Int32
    var hint: String?
    var description: String { message }

    /// A state directory another user could have written: its blocks and
    /// passcodes would be that user's to make.
    static func unsafeStateDirectory(_ path: String, _ problem: String) -> SystemServiceError {
        SystemServiceError(code: "system.unsafeStateDirectory", message: "refusing the state directory \(path): \(problem)", exitCode: 1,
                           hint: "make it root's and writable by root alone (chown root:root; chmod 700), or give --state-dir another")
    }

    static let notRoot = SystemServiceError(code: "system.notRoot", message: "the system service runs as root only", exitCode: 1,
                                            hint: "install it with 'sudo retime system install'")
}
