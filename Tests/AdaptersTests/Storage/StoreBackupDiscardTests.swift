import Adapters
import Domain
import Foundation
import Testing

/// A passcode hash that leaves the auth suite (removed, or now held by the
/// system service alone) leaves the store's backups too (issue 28).
@Suite("Backups of a forgotten passcode hash")
struct StoreBackupDiscardTests {
    @Test("when the hash goes, the auth suite's backups go; other suites keep theirs")
    func hashLeavesBackups() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("retime-backups-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let store = JSONFileStore(directory: directory)
        let auth = StoreAuthState(store: store)
        try await auth.update { $0.passcodeHash = "$y$fake-hash" }
        try await auth.update { $0.failedAttempts = 1 }
        try store.set("x", forKey: "a", in: "groups")
        try store.set("y", forKey: "a", in: "groups")
        #expect(try store.backupPaths(of: StoreAuthState.suite).count == 1)
        try await auth.update { $0.passcodeHash = nil; $0.passcodeHeldByEnforcer = true }
        #expect(try store.backupPaths(of: StoreAuthState.suite).isEmpty)
        #expect(try store.backupPaths(of: "groups").count == 1)
        #expect(try await auth.state().passcodeIsWithEnforcer)
    }
}
