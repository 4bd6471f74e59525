import Domain
import Foundation

/// Reading a source's files, with the errors an import reports.
extension ImportError {
    /// The whole file, or `unreadable` naming it.
    static func bytes(of path: String) throws(ImportError) -> [UInt8] {
        do {
            guard let bytes = try POSIXFiles.read(path) else { throw ImportError.unreadable(path: path, reason: "no such file") }
            return bytes
        } catch let error as ImportError { throw error } catch { throw .unreadable(path, error) }
    }

    /// The error for a path that cannot be read, from a thrown error.
    static func unreadable(_ path: String, _ error: any Error) -> ImportError {
        .unreadable(path: path, reason: (error as? StoreError)?.description ?? String(describing: error))
    }
}
