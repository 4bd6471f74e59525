import Domain
import Foundation

/// The rules every `ShieldAuthorizationProbe` keeps: it answers what its
/// shield can do where it is (the factory says what that is), the same
/// when asked again, and asking changes nothing: the files and state the
/// shield keeps are as they were.
public enum ShieldAuthorizationProbeContract {
    public struct Subject: Sendable {
        public var probe: any ShieldAuthorizationProbe
        /// What the shield can do here.
        public var expected: ShieldAuthorization
        /// What the shield keeps (files and their bytes, its state), to
        /// compare before and after; never empty.
        public var snapshot: @Sendable () async throws -> [String]

        public init(probe: any ShieldAuthorizationProbe, expected: ShieldAuthorization,
                    snapshot: @escaping @Sendable () async throws -> [String]) {
            self.probe = probe
            self.expected = expected
            self.snapshot = snapshot
        }
    }

    public typealias Factory = @Sendable () async throws -> Subject

    public static let checks: [ContractCheck<Factory>] = [
        ContractCheck("it answers what the shield can do here, and the same when asked again") { make in
            let subject = try await make()
            try requireEqual(await subject.probe.authorization(), subject.expected, "first answer")
            try requireEqual(await subject.probe.authorization(), subject.expected, "second answer")
        },
        ContractCheck("asking changes nothing the shield keeps") { make in
            let subject = try await make()
            let before = try await subject.snapshot()
            try require(!before.isEmpty, "the snapshot observes nothing")
            _ = await subject.probe.authorization()
            try requireEqual(try await subject.snapshot(), before, "what the shield keeps")
        },
    ]

    /// Every file under `directory` with its bytes, by path: a snapshot.
    public static func files(under directory: String) -> [String] {
        let manager = FileManager.default
        guard let names = manager.enumerator(atPath: directory)?.allObjects as? [String] else { return ["\(directory): missing"] }
        return [directory] + names.sorted().map { name in
            let data = manager.contents(atPath: directory + "/" + name)
            return "\(name): \(data.map { String(decoding: $0, as: UTF8.self) } ?? "-")"
        }
    }
}
