import Adapters
import Domain
import Foundation
import PortContracts
import Testing

/// Each shield's answer to `auth request`, against one verifier: the
/// `none` shield and the in-memory one can always block; the hosts shield
/// can when its file's directory takes a new file, and cannot when there is
/// no such directory. (The `system` shield's, against a real service, is in
/// the end-to-end suites.)
@Suite("Shields keep the ShieldAuthorizationProbe contract")
struct ShieldAuthorizationProbeContractTests {
    @Test(arguments: ShieldAuthorizationProbeContract.checks)
    func recording(_ check: ContractCheck<ShieldAuthorizationProbeContract.Factory>) async throws {
        try await check.run {
            let directory = TemporaryDirectory().file("store")
            let shield = RecordingShield(store: JSONFileStore(directory: directory), logger: Logger(label: "t", handler: InMemoryLogHandler()))
            try await shield.raise([try Target(parsing: "example.com")], for: SessionID())
            return .init(probe: shield, expected: .approved) { ShieldAuthorizationProbeContract.files(under: directory) }
        }
    }

    @Test(arguments: ShieldAuthorizationProbeContract.checks)
    func inMemory(_ check: ContractCheck<ShieldAuthorizationProbeContract.Factory>) async throws {
        try await check.run {
            let shield = InMemoryShield()
            try await shield.raise([try Target(parsing: "example.com")], for: SessionID())
            return .init(probe: shield, expected: .approved) { ["\(String(describing: try await shield.state()))"] }
        }
    }

    @Test(arguments: ShieldAuthorizationProbeContract.checks)
    func hostsFileWritable(_ check: ContractCheck<ShieldAuthorizationProbeContract.Factory>) async throws {
        try await check.run {
            let directory = TemporaryDirectory()
            let path = directory.file("hosts")
            try Data("127.0.0.1 localhost\n".utf8).write(to: URL(fileURLWithPath: path))
            let shield = HostsFileShield(path: path)
            try await shield.raise([try Target(parsing: "example.com")], for: SessionID())
            return .init(probe: shield, expected: .approved) { ShieldAuthorizationProbeContract.files(under: directory.path) }
        }
    }

    @Test(arguments: ShieldAuthorizationProbeContract.checks)
    func hostsFileWithoutDirectory(_ check: ContractCheck<ShieldAuthorizationProbeContract.Factory>) async throws {
        try await check.run {
            let directory = TemporaryDirectory()
            let shield = HostsFileShield(path: directory.file("missing/hosts"))
            return .init(probe: shield, expected: .denied) { ShieldAuthorizationProbeContract.files(under: directory.path) }
        }
    }
}
