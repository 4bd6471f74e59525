import Adapters
import Domain
import Foundation
import PortContracts
import Testing
#if canImport(Glibc)
import Glibc
#endif

/// `doctor`'s inspector of a data directory's files.
@Suite("The data directory's inspector keeps the HealthInspector contract")
struct DataDirectoryHealthContractTests {
    @Test(arguments: HealthInspectorContract.checks + HealthInspectorContract.repairChecks)
    func dataDirectory(_ check: ContractCheck<HealthInspectorContract.Factory>) async throws {
        try await check.run { damaged in
            let directory = TemporaryDirectory()
            let store = JSONFileStore(directory: directory.file("store"))
            try await StoreGroupRepository(store: store).insert(Fixtures.group("work"))
            try await StoreGroupRepository(store: store).insert(Fixtures.group("play"))   // a backup generation to restore
            if damaged { _ = FileManager.default.createFile(atPath: directory.file("store/groups.json"), contents: Data("{\"format".utf8)) }
            return DataDirectoryHealth(paths: .init(root: directory.path, store: directory.file("store"), history: directory.file("history"),
                                                    audit: directory.file("audit.jsonl"), deviceID: directory.file("state/device-id"),
                                                    legacyDeviceID: directory.file("device-id")))
        }
    }
}
