import Domain
import FoundationEssentials
#if canImport(Glibc)
import Glibc
#endif

/// The history as its segments, for reports: which files a query's range
/// reaches (each with a version a summary can be checked against), their
/// spans decoded straight from the lines, and the amendments.
extension JSONLinesSessionHistory {
    /// Every segment file of every device whose month overlaps the query's
    /// range, conflict copies included, by device and name. A file's
    /// version is its stamp (device, inode, size, modification and change
    /// times) when it last changed well before now (`FolderListings.settled`):
    /// any later change moves its change time, which nothing sets back. One
    /// changed just now has none: a change within the same tick of the file
    /// times might leave the stamp as it is.
    public func segments(matching query: HistoryQuery) async throws -> HistorySegments {
        var segments: [HistorySegment] = []
        var conflictCopies = false
        let now = wallNanoseconds()
        for device in POSIXFiles.names(in: directory).sorted() where !device.hasPrefix(".") {
            let folder = directory + "/" + device
            for file in POSIXFiles.names(in: folder).sorted() where !SyncToolFiles.isTemporary(file) {
                let original = SyncToolFiles.original(of: file)
                guard original.hasSuffix(".jsonl"), original != Self.amendmentsFile else { continue }
                let month = String(original.dropLast(6))
                guard SegmentName.month(month, overlaps: query) else { continue }
                conflictCopies = conflictCopies || original != file
                segments.append(HistorySegment(device: device, name: file, month: SegmentName.range(of: month),
                                               version: Self.version(of: folder + "/" + file, now: now)))
            }
        }
        // Appends never repeat an id within a device's file; devices'
        // folders and a sync tool's copies may.
        let devices = Set(segments.map(\.device))
        return HistorySegments(segments: segments, deduplicated: devices.count > 1 || conflictCopies)
    }

    /// Spans decoded straight from the lines, segments in parallel, each
    /// segment's in its order.
    public func spans(in segments: [HistorySegment], matching query: HistoryQuery) async throws -> [[SessionSpan]] {
        let decoded = try await withThrowingTaskGroup(of: (Int, [SessionSpan]).self) { tasks in
            for (index, segment) in segments.enumerated() {
                let path = directory + "/" + segment.device + "/" + segment.name
                tasks.addTask(executorPreference: globalConcurrentExecutor) {
                    (index, try readLines(path) { line in
                        guard let span = try SessionLineCodec.decodeSpan(line, withTags: query.spansWithTags), query.matches(span)
                        else { return nil }
                        return span
                    })
                }
            }
            return try await tasks.reduce(into: [Int: [SessionSpan]]()) { $0[$1.0] = $1.1 }
        }
        return segments.indices.map { decoded[$0] ?? [] }
    }

    /// Every device's amendments merged: the ids they name, and the spans
    /// of the amended sessions that match the query.
    public func amendedSpans(matching query: HistoryQuery) async throws -> AmendedSpans {
        let amended = try amendedSessions()
        guard !amended.isEmpty else { return AmendedSpans() }
        return AmendedSpans(ids: amended.ids, spans: amended.resolved().values.compactMap { session in
            query.matches(session) ? SessionSpan(session, withTags: query.spansWithTags) : nil
        })
    }

    /// Spans of every segment the query reaches, each id once where devices'
    /// folders (or a sync tool's copies) may repeat one, amended sessions as
    /// their amendments merge (`HistorySpans.resolve`).
    public func spans(matching query: HistoryQuery) async throws -> [SessionSpan] {
        try await segmentedSpans(matching: query)
    }

    /// A segment's version, if it last changed well before `now` (ns).
    private static func version(of path: String, now: Int64) -> String? {
        var info = stat()
        guard lstat(path, &info) == 0, (info.st_mode & S_IFMT) == S_IFREG else { return nil }
        let stamp = POSIXFiles.FileStamp(info)
        guard max(stamp.modifiedNanoseconds, stamp.changedNanoseconds) < now - FolderListings.settled else { return nil }
        return "\(stamp.device):\(stamp.inode):\(stamp.size):\(stamp.modifiedNanoseconds):\(stamp.changedNanoseconds)"
    }
}
