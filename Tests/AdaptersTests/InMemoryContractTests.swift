import Adapters
import Domain
import PortContracts
import Testing

/// Every in-memory adapter against its port's contract verifier.
@Suite("In-memory adapters keep their ports' contracts")
struct InMemoryContractTests {
    @Test(arguments: GroupRepositoryContract.checks)
    func groupRepository(_ check: ContractCheck<GroupRepositoryContract.Factory>) async throws {
        try await check.run { InMemoryGroupRepository() }
    }

    @Test(arguments: SessionRepositoryContract.checks)
    func sessionRepository(_ check: ContractCheck<SessionRepositoryContract.Factory>) async throws {
        try await check.run { InMemorySessionRepository() }
    }

    @Test(arguments: SessionHistoryContract.checks)
    func sessionHistory(_ check: ContractCheck<SessionHistoryContract.Factory>) async throws {
        try await check.run { InMemorySessionHistory() }
    }

    @Test(arguments: HistorySummaryStoreContract.checks)
    func historySummaries(_ check: ContractCheck<HistorySummaryStoreContract.Factory>) async throws {
        try await check.run { InMemoryHistorySummaryStore() }
    }

    @Test(arguments: HistoryJournalContract.checks)
    func historyJournal(_ check: ContractCheck<HistoryJournalContract.Factory>) async throws {
        try await check.run { InMemoryHistoryJournal() }
    }

    @Test(arguments: ShieldContract.checks)
    func shield(_ check: ContractCheck<ShieldContract.Factory>) async throws {
        try await check.run { InMemoryShield() }
    }

    @Test(arguments: ShieldDirectoryContract.checks)
    func fixedShieldDirectory(_ check: ContractCheck<ShieldDirectoryContract.Factory>) async throws {
        try await check.run { FixedShieldDirectory(InMemoryShield()) }
    }

    /// The `none` shield (the default), over both stores.
    @Test(arguments: ShieldContract.checks)
    func recordingShield(_ check: ContractCheck<ShieldContract.Factory>) async throws {
        try await check.run { RecordingShield(store: InMemoryKeyValueStore(), logger: Logger(label: "t", handler: InMemoryLogHandler())) }
        try await check.run {
            RecordingShield(store: JSONFileStore(directory: TemporaryDirectory().file("store")), logger: Logger(label: "t", handler: InMemoryLogHandler()))
        }
    }

    @Test(arguments: AuthStateStoreContract.checks)
    func authState(_ check: ContractCheck<AuthStateStoreContract.Factory>) async throws {
        try await check.run { InMemoryAuthState() }
    }

    @Test(arguments: AuditTrailContract.checks)
    func auditTrail(_ check: ContractCheck<AuditTrailContract.Factory>) async throws {
        try await check.run { InMemoryAuditTrail() }
    }

    @Test(arguments: PasscodeHasherContract.checks)
    func testHasher(_ check: ContractCheck<PasscodeHasherContract.Factory>) async throws {
        try await check.run { TestPasscodeHasher() }
    }

    @Test(arguments: LogHandlerContract.checks)
    func inMemoryLogHandler(_ check: ContractCheck<LogHandlerContract.Factory>) async throws {
        try await check.run { InMemoryLogHandler() }
    }

    @Test(arguments: LogHandlerContract.checks)
    func multiplexLogHandler(_ check: ContractCheck<LogHandlerContract.Factory>) async throws {
        try await check.run { MultiplexLogHandler([InMemoryLogHandler(), InMemoryLogHandler(logLevel: .error)]) }
    }

    @Test(arguments: TrackerContract.checks)
    func inMemoryTracker(_ check: ContractCheck<TrackerContract.Factory>) async throws {
        try await check.run {
            let tracker = InMemoryTracker()
            return .init(tracker: tracker, recorded: { tracker.events })
        }
    }

}

@Suite("Clocks keep the Clock contract")
struct ClockContractTests {
    @Test(arguments: ClockContract.checks)
    func manualClock(_ check: ContractCheck<ClockContract.Factory>) async throws {
        try await check.run {
            let clock = ManualClock()
            return .init(clock: clock, passTime: { clock.advance(by: $0) })
        }
    }

    @Test(arguments: ClockContract.checks)
    func systemClock(_ check: ContractCheck<ClockContract.Factory>) async throws {
        try await check.run { .init(clock: SystemClock(), passTime: { _ in }) }
    }
}

@Suite("Context bridges keep their ports' contracts")
struct BridgeContractTests {
    @Test(arguments: ImportGroupDirectoryContract.checks)
    func importDirectory(_ check: ContractCheck<ImportGroupDirectoryContract.Factory>) async throws {
        try await check.run { groups in
            let repository = InMemoryGroupRepository(groups)
            return .init(directory: GroupRepositoryImportDirectory(groups: repository, clock: ManualClock()), groups: { try await repository.all() })
        }
    }

    @Test(arguments: SessionGroupLookupContract.checks)
    func groupRepositoryLookup(_ check: ContractCheck<SessionGroupLookupContract.Factory>) async throws {
        try await check.run { groups in GroupRepositoryLookup(groups: InMemoryGroupRepository(groups)) }
    }

    @Test(arguments: GroupUsageQueryContract.checks)
    func sessionGroupUsage(_ check: ContractCheck<GroupUsageQueryContract.Factory>) async throws {
        try await check.run { group, scheduled, now in
            let sessions = InMemorySessionRepository(group.map { Fixtures.session(group: $0) })
            return SessionGroupUsage(sessions: sessions, schedules: InMemoryScheduleRepository(scheduled), clock: ManualClock(now: now))
        }
    }

    @Test(arguments: HeldBlockStoreContract.checks)
    func inMemoryHeldBlockStore(_ check: ContractCheck<HeldBlockStoreContract.Factory>) async throws {
        try await check.run { InMemoryHeldBlockStore() }
    }

    @Test(arguments: DataLockContract.checks)
    func inMemoryDataLock(_ check: ContractCheck<DataLockContract.Factory>) async throws {
        try await check.run { InMemoryDataLock() }
    }

    @Test(arguments: AllowanceLedgerContract.checks)
    func inMemoryAllowanceLedger(_ check: ContractCheck<AllowanceLedgerContract.Factory>) async throws {
        try await check.run { InMemoryAllowanceLedger() }
    }

    @Test(arguments: IntervalLedgerContract.checks)
    func inMemoryIntervalLedger(_ check: ContractCheck<IntervalLedgerContract.Factory>) async throws {
        try await check.run { InMemoryIntervalLedger() }
    }

    @Test(arguments: StrictSessionLockContract.checks)
    func strictSessionLock(_ check: ContractCheck<StrictSessionLockContract.Factory>) async throws {
        try await check.run { world in
            let clock = ManualClock(now: world.now)
            let devices = DataFolderDevices(thisDevice: { "3f2c8a1e-0000-4000-8000-000000000001" }, directory: "/nonexistent/devices", clock: clock)
            return StrictSessionLock(sessions: InMemorySessionRepository(world.session), clocks: SessionClocks(clock: clock, devices: devices))
        }
    }

    @Test(arguments: ScheduleRepositoryContract.checks)
    func inMemoryScheduleRepository(_ check: ContractCheck<ScheduleRepositoryContract.Factory>) async throws {
        try await check.run { InMemoryScheduleRepository() }
    }

    @Test(arguments: SyncFolderContract.checks)
    func inMemorySyncFolder(_ check: ContractCheck<SyncFolderContract.Factory>) async throws {
        try await check.run { InMemorySyncFolder(deviceID: "0b1c2d3e-0000-4000-8000-000000000001") }
    }
}
