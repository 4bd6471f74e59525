#if canImport(Glibc)
import Domain
import FoundationEssentials
import Glibc
import JSONDocument
#endif

/// What `doctor --repair` did to a damaged change log.
public struct ChangeLogRepair: Sendable, Equatable {
    /// Where the damaged file now is; it is never deleted.
    public var movedTo: String
    /// The lines kept in the mended log, and those that could not be read.
    public var kept: Int
    public var dropped: Int
}

/// `doctor`'s look at a suite's change logs: each device's log read as it
/// is, and a damaged one mended without losing a readable line.
extension ReplicatedLogStore {
    /// The suite as every log holds it, or the first damage found.
    public func health(of suite: String) -> (health: SuiteHealth, devices: Int) {
        let files = logFiles(of: suite)
        let devices = Set(files.map { POSIXFiles.parentDirectory(of: POSIXFiles.parentDirectory(of: $0)) }).count
        guard !files.isEmpty else { return (.missing, 0) }
        do {
            return (.healthy(keys: try values(of: suite).count), devices)
        } catch let error as StoreError {
            return (.damaged(error), devices)
        } catch {
            return (.damaged(.unreadable(path: directory, reason: "\(error)")), devices)
        }
    }

    /// Moves the damaged log at `path` aside (`<log>.corrupt-<time>`, which
    /// no reader takes for a log) and puts back a log of its readable
    /// lines, in their order. A log of another device is mended too: the
    /// alternative is that no device can read the suite at all.
    public func repair(_ path: String, now: Date) throws -> ChangeLogRepair {
        guard let bytes = try POSIXFiles.read(path, limit: Self.readLimit) else {
            throw StoreError.unreadable(path: path, reason: "it is gone")
        }
        var kept: [UInt8] = [], keptCount = 0, dropped = 0
        for line in bytes.split(separator: 0x0A, omittingEmptySubsequences: true) {
            if (try? ChangeLine.decode(Array(line))) != nil {
                kept += line + [0x0A]
                keptCount += 1
            } else if !line.allSatisfy({ $0 == 0x20 || $0 == 0x09 || $0 == 0x0D }) {
                dropped += 1
            }
        }
        let aside = path + ".corrupt-" + Timestamp.format(now, fractionDigits: 0).replacingAll(":", with: "")
        guard rename(path, aside) == 0 else { throw StoreError.notWritable(path: path, reason: POSIXFiles.reason()) }
        if !kept.isEmpty { try POSIXFiles.writeAtomically(kept, to: path) }
        forgetParsedSuites()
        return ChangeLogRepair(movedTo: aside, kept: keptCount, dropped: dropped)
    }
}
