import Adapters
import Domain
import Foundation
import PortContracts
import Testing
#if canImport(Glibc)
import Glibc
#endif

/// retime's export file as the `BackupEncoder`, read back by its import source.
@Suite("The retime export keeps the BackupEncoder contract")
struct BackupEncoderContractTests {
    @Test(arguments: BackupEncoderContract.checks)
    func retimeExport(_ check: ContractCheck<BackupEncoderContract.Factory>) async throws {
        try await check.run { .init(encoder: RetimeExportEncoder(), reader: RetimeExportSource(), directory: TemporaryDirectory().path) }
    }
}
