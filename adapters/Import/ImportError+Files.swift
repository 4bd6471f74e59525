import Domain
import FoundationEssentials
#if canImport(Glibc)
import Glibc
#endif

/// Reading a source's files, with the errors an import reports.
extension ImportError {
    /// The most an imported file may hold: a decade of Watson frames is
    /// tens of MB.
    static let readLimit = 256 << 20

    /// The whole file, or `unreadable` naming it (also a file that is not a
    /// regular one, such as `/dev/zero`, or one over `readLimit`).
    static func bytes(of path: String) throws(ImportError) -> [UInt8] {
        do {
            guard let bytes = try POSIXFiles.read(path, limit: readLimit) else { throw ImportError.unreadable(path: path, reason: "no such file") }
            return bytes
        } catch let error as ImportError { throw error } catch { throw .unreadable(path, error) }
    }

    /// `path`, or `path/name` when `path` is a folder holding `name`:
    /// people give a tool's folder (`~/.config/watson`) as readily as its file.
    static func file(_ path: String, orInside name: String) -> String {
        var isDirectory = false
        let inside = path + "/" + name
        guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory), isDirectory,
              FileManager.default.fileExists(atPath: inside) else { return path }
        return inside
    }

    /// The error for a path that cannot be read, from a thrown error: its
    /// reason only, as the message names the path itself.
    static func unreadable(_ path: String, _ error: any Error) -> ImportError {
        let reason = switch error as? StoreError {
        case .unreadable(_, let reason)?, .notWritable(_, let reason)?, .corrupted(_, let reason)?: reason
        case .notRegularFile(_, "directory")?: String(cString: strerror(EISDIR))
        case .notRegularFile(_, let kind)?: "it is a \(kind), not a regular file"
        case let other?: other.description
        case nil: String(describing: error)
        }
        return .unreadable(path: path, reason: reason)
    }
}
