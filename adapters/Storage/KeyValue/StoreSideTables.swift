import Domain
import FoundationEssentials
import JSONDocument
import Synchronization

/// What every file-backed store keeps beside its files, in this process
/// only: the defaults registered per suite (never written) and the
/// observers of its changes.
final class StoreSideTables: Sendable {
    private let registeredDefaults = Mutex<[String: [String: JSONValue]]>([:])
    private let observers = Mutex<[UUID: AsyncStream<String>.Continuation]>([:])

    func register(defaults: [String: JSONValue], in suite: String) {
        registeredDefaults.withLock { $0[suite, default: [:]].merge(defaults) { _, new in new } }
    }

    func defaults(of suite: String) -> [String: JSONValue] {
        registeredDefaults.withLock { $0[suite] ?? [:] }
    }

    /// A stream of the names of suites changed from now on.
    func changes() -> AsyncStream<String> {
        let (stream, continuation) = AsyncStream<String>.makeStream(bufferingPolicy: .bufferingNewest(64))
        let id = UUID()
        observers.withLock { $0[id] = continuation }
        continuation.onTermination = { [weak self] _ in _ = self?.observers.withLock { $0.removeValue(forKey: id) } }
        return stream
    }

    func notify(_ suite: String) {
        for continuation in observers.withLock({ Array($0.values) }) { continuation.yield(suite) }
    }
}
