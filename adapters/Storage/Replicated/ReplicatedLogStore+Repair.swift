#if canImport(Glibc)
import Domain
import FoundationEssentials
import Glibc
import JSONDocument
#endif

/// What `doctor --repair` did to a damaged log of this device.
public struct ChangeLogRepair: Sendable, Equatable {
    /// Where the damaged file now is; it is never deleted.
    public var movedTo: String
    /// The lines of the damaged file kept (they read), the lines of the
    /// last good copy put back beside them (those the damaged file no
    /// longer held whole), and the lines that could not be read.
    public var kept: Int
    public var restored: Int
    public var dropped: Int
    /// When the last good copy was made; nil when there was none: then
    /// every change in the dropped lines is lost.
    public var copyMade: Date?
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

    /// Other devices' logs of `suite` that do not read, left out of the
    /// merge (semantics.md, "A peer's damage is not mine"), each with why.
    public func unreadableLogs(of suite: String) throws -> [(path: String, error: StoreError)] {
        try merged(suite).reader.unreadable.map { ($0.key, $0.value.error) }.sorted { $0.path < $1.path }
    }

    /// Whether a read of `suite` leaves out another device's log that does
    /// not read. A snapshot serves a read only while every log is as it was
    /// made from, and one is never made from a merge that left a log out.
    public func leavesOut(_ suite: String) throws -> Bool {
        switch try readState(suite) {
        case .merged(let state): !state.reader.unreadable.isEmpty
        case .snapshot: false
        }
    }

    /// Moves the damaged log of this device at `path` aside
    /// (`<log>.corrupt-<time>`, which no reader takes for a log) and puts
    /// back a log of its readable lines and of every line of its last good
    /// copy (`keepGoodCopy`), in stamp order, once each. Another device's
    /// log is never touched (semantics.md, "A peer's damage is not mine"):
    /// a sync tool would carry the move to that device, and this one's
    /// merge leaves it out until it reads.
    public func repair(_ path: String, now: Date) throws -> ChangeLogRepair {
        let device = try deviceID()
        let folder = directory + "/" + device + "/changes/"
        guard path.hasPrefix(folder), path.hasSuffix(".jsonl") else {
            throw StoreError.notWritable(path: path, reason: "it is another device's; only that device mends it")
        }
        guard let bytes = try POSIXFiles.read(path, limit: ChangeLogReader.readLimit) else {
            throw StoreError.unreadable(path: path, reason: "it is gone")
        }
        var lines: [(at: HybridTimestamp, bytes: [UInt8])] = [], seen: Set<[UInt8]> = [], dropped = 0
        for line in bytes.split(separator: 0x0A, omittingEmptySubsequences: true) {
            if let decoded = try? ChangeLine.decodeLine(Array(line), values: false) {
                if seen.insert(Array(line)).inserted { lines.append((decoded.at, Array(line))) }
            } else if !line.allSatisfy({ $0 == 0x20 || $0 == 0x09 || $0 == 0x0D }) {
                dropped += 1
            }
        }
        let keptCount = lines.count
        let suite = String(path.dropFirst(folder.count).dropLast(".jsonl".count))
        let copy = SuiteName.isValid(suite) ? goodCopy(of: suite) : nil
        for line in copy?.lines ?? [] where seen.insert(line).inserted {
            if let decoded = try? ChangeLine.decodeLine(line, values: false) { lines.append((decoded.at, line)) }
        }
        // In the order the device wrote them: its clock's order.
        lines.sort { $0.at < $1.at }
        let aside = path + ".corrupt-" + Timestamp.format(now, fractionDigits: 0).replacingAll(":", with: "")
        guard rename(path, aside) == 0 else { throw StoreError.notWritable(path: path, reason: POSIXFiles.reason()) }
        if !lines.isEmpty { try POSIXFiles.writeAtomically(lines.flatMap { $0.bytes + [0x0A] }, to: path) }
        forgetParsedSuites()
        return ChangeLogRepair(movedTo: aside, kept: keptCount, restored: lines.count - keptCount, dropped: dropped, copyMade: copy?.made)
    }
}
