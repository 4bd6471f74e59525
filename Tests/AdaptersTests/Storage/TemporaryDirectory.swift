import Foundation

/// A fresh directory under the system's temp directory, for tests that use
/// real files; never the user's data.
struct TemporaryDirectory: Sendable {
    let path: String

    init() {
        path = FileManager.default.temporaryDirectory
            .appendingPathComponent("retime-tests-\(UUID().uuidString)").path
        try! FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
    }

    func file(_ name: String) -> String { path + "/" + name }
}
