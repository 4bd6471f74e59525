import Adapters
import Domain
import Foundation
import PortContracts
import Testing

/// The store of a data folder that several devices share, and the
/// repositories over it, against the same verifiers as every other store.
@Suite("The replicated log store keeps the store's and the repositories' contracts")
struct ReplicatedContractTests {
    static let device = "0a1b2c3d-0000-4000-8000-000000000001"

    static func store() -> ReplicatedLogStore {
        ReplicatedLogStore.dataFolder(devices: TemporaryDirectory().file("devices"), deviceID: { device }, now: { Date() })
    }

    @Test(arguments: KeyValueStoreContract.checks)
    func store(_ check: ContractCheck<KeyValueStoreContract.Factory>) async throws {
        try await check.run { Self.store() }
    }

    /// The data folder's store as a command opens it: shared suites to the
    /// logs, the others to this machine's own folder.
    @Test(arguments: KeyValueStoreContract.checks)
    func dataFolderStore(_ check: ContractCheck<KeyValueStoreContract.Factory>) async throws {
        try await check.run { DataFolderStore.open(root: TemporaryDirectory().path, deviceID: { Self.device }, now: { Date() }) }
    }

    @Test(arguments: GroupRepositoryContract.checks)
    func groups(_ check: ContractCheck<GroupRepositoryContract.Factory>) async throws {
        try await check.run { StoreGroupRepository(store: Self.store()) }
    }

    @Test(arguments: SessionRepositoryContract.checks)
    func session(_ check: ContractCheck<SessionRepositoryContract.Factory>) async throws {
        try await check.run { StoreSessionRepository(store: Self.store()) }
    }

    @Test(arguments: SettingsStoreContract.checks)
    func settings(_ check: ContractCheck<SettingsStoreContract.Factory>) async throws {
        try await check.run { StoreSettings(store: Self.store()) }
    }

    @Test(arguments: ScheduleRepositoryContract.checks)
    func schedules(_ check: ContractCheck<ScheduleRepositoryContract.Factory>) async throws {
        try await check.run { StoreScheduleRepository(store: Self.store()) }
    }

    @Test(arguments: AllowanceLedgerContract.checks)
    func allowances(_ check: ContractCheck<AllowanceLedgerContract.Factory>) async throws {
        try await check.run { StoreAllowanceLedger(store: Self.store()) }
    }

    @Test("two devices spending one group's allowance on the same day: each writes its own record, and both read the sum")
    func allowancesOfTwoDevices() async throws {
        let devices = TemporaryDirectory().file("devices")
        let laptop = StoreAllowanceLedger(store: ReplicatedLogStore.dataFolder(devices: devices, deviceID: { Self.device }, now: { Date() }))
        let other = "0a1b2c3d-0000-4000-8000-000000000002"
        let desktop = StoreAllowanceLedger(store: ReplicatedLogStore.dataFolder(devices: devices, deviceID: { other }, now: { Date() }))
        let group = GroupID("00000000-0000-4000-8000-00000000000a")!
        try await laptop.spend(300, of: group, by: Self.device, on: 20_000, at: Date(), boot: nil)
        try await desktop.spend(200, of: group, by: other, on: 20_000, at: Date(), boot: nil)
        try await laptop.spend(-100, of: group, by: Self.device, on: 20_000, at: Date(), boot: nil)
        #expect(try await desktop.spending(of: group).spent(on: 20_000) == 400)
        #expect(try await laptop.spending(of: group).spent(on: 20_000) == 400)
        #expect(Set(try await laptop.spending(of: group).map(\.device)) == [Self.device, other])
    }

    @Test(arguments: AuthStateStoreContract.checks)
    func auth(_ check: ContractCheck<AuthStateStoreContract.Factory>) async throws {
        try await check.run { StoreAuthState(store: Self.store()) }
    }
}
