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

    /// The error for a path that cannot be read, from a thrown error: its
    /// reason only, as the message names the path itself.
    static func unreadable(_ path: String, _ error: any Error) -> ImportError {
        let reason = switch error as? StoreError {
        case .unreadable(_, let reason)?, .notWritable(_, let reason)?, .corrupted(_, let reason)?: reason
        case let other?: other.description
        case nil: String(describing: error)
        }
        return .unreadable(path: path, reason: reason)
    }
}
