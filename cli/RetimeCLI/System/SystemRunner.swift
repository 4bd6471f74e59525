import Adapters
import Domain
import FoundationEssentials
#if canImport(Glibc)
import Glibc
#endif

/// `retime system run`: as root, makes the state directory (0700, root's),
/// then runs its services in a `ServiceGroup`: the one-service-per-state
/// lock, the services built from `SystemRoot`, and the shield (every block
/// restored before it listens, then requests served and each block lifted
/// at its end) until TERM or INT, after which the blocks' progress is
/// written and it exits 0. HUP is caught and changes nothing.
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
        let options = options, runtime = runtime
        // One service per state directory: a second would take the socket
        // and enforce from the same state at once.
        let lock = HoldingService(name: "lock") {
            do {
                let held = try DaemonLock(dataDirectory: options.stateDirectory).acquire()
                return { held.release() }
            } catch DaemonError.alreadyRunning(let pid, _) {
                throw SystemServiceError(code: "system.alreadyRunning", message: "a system service already runs with \(options.stateDirectory) (pid \(pid))",
                                         exitCode: 1, hint: nil)
            }
        }
        let services = ContainerService {
            // A service killed mid-write left temp copies behind: gone now.
            JSONFileStore(directory: options.stateDirectory).removeTempFilesOfDeadWriters()
            HostsLayer(path: options.hostsFile).removeStrayCopies()
            return SystemRoot.container(options, context: runtime)
        }
        let shield = ShieldService(options: options, environment: runtime.environment, work: { try SystemRoot.work(services.container()) })
        try await ServiceGroup(services: [lock, services, shield], signals: ProcessSignals()).run()
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
