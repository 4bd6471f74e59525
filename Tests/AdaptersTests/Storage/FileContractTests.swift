import Adapters
import Domain
import PortContracts
import Testing

/// The file-backed adapters against the same verifiers as the in-memory ones.
@Suite("File-backed adapters keep their ports' contracts")
struct FileContractTests {
    static func store() -> JSONFileStore { JSONFileStore(directory: TemporaryDirectory().file("store")) }

    @Test(arguments: KeyValueStoreContract.checks)
    func jsonFileStore(_ check: ContractCheck<KeyValueStoreContract.Factory>) async throws {
        try await check.run { Self.store() }
    }

    @Test(arguments: GroupRepositoryContract.checks)
    func groupRepository(_ check: ContractCheck<GroupRepositoryContract.Factory>) async throws {
        try await check.run { StoreGroupRepository(store: Self.store()) }
    }

    @Test(arguments: SessionGroupLookupContract.checks)
    func groupLookup(_ check: ContractCheck<SessionGroupLookupContract.Factory>) async throws {
        try await check.run { groups in
            let repository = StoreGroupRepository(store: Self.store())
            for group in groups { try await repository.insert(group) }
            return GroupRepositoryLookup(groups: repository)
        }
    }

    @Test(arguments: ImportGroupDirectoryContract.checks)
    func importDirectory(_ check: ContractCheck<ImportGroupDirectoryContract.Factory>) async throws {
        try await check.run { groups in
            let repository = StoreGroupRepository(store: Self.store())
            for group in groups { try await repository.insert(group) }
            return .init(directory: GroupRepositoryImportDirectory(groups: repository, clock: ManualClock()), groups: { try await repository.all() })
        }
    }

    @Test(arguments: SessionRepositoryContract.checks)
    func sessionRepository(_ check: ContractCheck<SessionRepositoryContract.Factory>) async throws {
        try await check.run { StoreSessionRepository(store: Self.store()) }
    }

    @Test(arguments: SettingsStoreContract.checks)
    func settings(_ check: ContractCheck<SettingsStoreContract.Factory>) async throws {
        try await check.run { StoreSettings(store: Self.store()) }
    }

    @Test(arguments: ScheduleRepositoryContract.checks)
    func scheduleRepository(_ check: ContractCheck<ScheduleRepositoryContract.Factory>) async throws {
        try await check.run { StoreScheduleRepository(store: Self.store()) }
    }

    @Test(arguments: HeldBlockStoreContract.checks)
    func heldBlockStore(_ check: ContractCheck<HeldBlockStoreContract.Factory>) async throws {
        try await check.run { StoreHeldBlockStore(store: Self.store()) }
    }

    @Test(arguments: DataLockContract.checks)
    func dataLock(_ check: ContractCheck<DataLockContract.Factory>) async throws {
        try await check.run { FileDataLock(storeDirectory: TemporaryDirectory().file("store")) }
    }

    @Test(arguments: AllowanceLedgerContract.checks)
    func allowanceLedger(_ check: ContractCheck<AllowanceLedgerContract.Factory>) async throws {
        try await check.run { StoreAllowanceLedger(store: Self.store()) }
    }

    @Test(arguments: IntervalLedgerContract.checks)
    func intervalLedger(_ check: ContractCheck<IntervalLedgerContract.Factory>) async throws {
        try await check.run { StoreIntervalLedger(store: Self.store()) }
    }

    @Test(arguments: AuthStateStoreContract.checks)
    func authState(_ check: ContractCheck<AuthStateStoreContract.Factory>) async throws {
        try await check.run { StoreAuthState(store: Self.store()) }
    }

    @Test(arguments: AuditTrailContract.checks)
    func auditTrail(_ check: ContractCheck<AuditTrailContract.Factory>) async throws {
        try await check.run { JSONLinesAuditTrail(path: TemporaryDirectory().file("audit.jsonl")) }
    }
}

@Suite("Store-backed repositories over the in-memory store keep the same contracts")
struct InMemoryStoreContractTests {
    @Test(arguments: KeyValueStoreContract.checks)
    func inMemoryStore(_ check: ContractCheck<KeyValueStoreContract.Factory>) async throws {
        try await check.run { InMemoryKeyValueStore() }
    }

    @Test(arguments: GroupRepositoryContract.checks)
    func groupRepository(_ check: ContractCheck<GroupRepositoryContract.Factory>) async throws {
        try await check.run { StoreGroupRepository(store: InMemoryKeyValueStore()) }
    }

    @Test(arguments: SessionRepositoryContract.checks)
    func sessionRepository(_ check: ContractCheck<SessionRepositoryContract.Factory>) async throws {
        try await check.run { StoreSessionRepository(store: InMemoryKeyValueStore()) }
    }

    @Test(arguments: SettingsStoreContract.checks)
    func settings(_ check: ContractCheck<SettingsStoreContract.Factory>) async throws {
        try await check.run { StoreSettings(store: InMemoryKeyValueStore()) }
    }

    @Test(arguments: AuthStateStoreContract.checks)
    func authState(_ check: ContractCheck<AuthStateStoreContract.Factory>) async throws {
        try await check.run { StoreAuthState(store: InMemoryKeyValueStore()) }
    }

    @Test(arguments: SyncFolderContract.checks)
    func fileSyncFolder(_ check: ContractCheck<SyncFolderContract.Factory>) async throws {
        try await check.run { FileSyncFolder(root: TemporaryDirectory().path, deviceID: { "0b1c2d3e-0000-4000-8000-000000000001" }) }
    }
}
