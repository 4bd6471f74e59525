import Adapters
import Domain
import Foundation
import PortContracts
import Testing
#if canImport(Glibc)
import Glibc
#endif

/// The adapters of the ports issue 21 added, against their verifiers.
@Suite("Adapters of the observer, presence, health and backup ports keep their contracts")
struct Issue21ContractTests {
    @Test(arguments: GroupTargetsObserverContract.checks)
    func shieldRefresh(_ check: ContractCheck<GroupTargetsObserverContract.Factory>) async throws {
        try await check.run {
            let groups = InMemoryGroupRepository()
            let group = Fixtures.group("work", targets: ["first.example.com"])
            try await groups.insert(group)
            let sessions = InMemorySessionRepository(Fixtures.session(group: group.id))
            let shield = InMemoryShield()
            let refresh = RefreshShieldUseCase(sessions: sessions, groups: GroupRepositoryLookup(groups: groups), shields: FixedShieldDirectory(shield))
            return .init(observer: ShieldRefreshOnTargetChange(refresh: refresh), group: group.id, setTargets: { targets in
                var changed = try await groups.group(id: group.id)!
                try changed.remove(changed.targets)
                _ = changed.add(targets)
                try await groups.update(changed)
            }, blocked: { try await shield.state()?.targets })
        }
    }

    @Test(arguments: DaemonPresenceContract.checks)
    func daemonLock(_ check: ContractCheck<DaemonPresenceContract.Factory>) async throws {
        try await check.run {
            let lock = DaemonLock(dataDirectory: TemporaryDirectory().path)
            let held = HeldBox()
            return .init(presence: lock, start: { held.set(try lock.acquire()) }, stop: { held.release() }, pid: getpid())
        }
    }

    @Test(arguments: HealthInspectorContract.checks + HealthInspectorContract.repairChecks)
    func dataDirectory(_ check: ContractCheck<HealthInspectorContract.Factory>) async throws {
        try await check.run { damaged in
            let directory = TemporaryDirectory()
            let store = JSONFileStore(directory: directory.file("store"))
            try await StoreGroupRepository(store: store).insert(Fixtures.group("work"))
            try await StoreGroupRepository(store: store).insert(Fixtures.group("play"))   // a backup generation to restore
            if damaged { _ = FileManager.default.createFile(atPath: directory.file("store/groups.json"), contents: Data("{\"format".utf8)) }
            return DataDirectoryHealth(paths: .init(root: directory.path, store: directory.file("store"), history: directory.file("history"),
                                                    audit: directory.file("audit.jsonl")))
        }
    }

    @Test(arguments: BackupEncoderContract.checks)
    func retimeExport(_ check: ContractCheck<BackupEncoderContract.Factory>) async throws {
        try await check.run { .init(encoder: RetimeExportEncoder(), reader: RetimeExportSource(), directory: TemporaryDirectory().path) }
    }
}

/// The daemon lock held between a contract's start and stop.
private final class HeldBox: @unchecked Sendable {
    private var held: HeldDaemonLock?
    private let lock = NSLock()
    func set(_ value: HeldDaemonLock) { lock.withLock { held = value } }
    func release() { lock.withLock { held?.release(); held = nil } }
}
