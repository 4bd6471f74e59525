import CRetimeLinux
import Domain
import FoundationEssentials
#if canImport(Glibc)
import Glibc
#endif

/// Ended sessions as append-only JSON-lines segments, one folder per device
/// and one file per month of the sessions' start (UTC):
/// `history/<device-id>/2026-11.jsonl`. See docs/storage.md.
///
/// - Appending writes one line with `O_APPEND` and `fsync`s it; other lines
///   are never rewritten, so the cost does not grow with history.
/// - A session already among the segment's recent lines is not appended
///   again; reads also keep each id once (copies from synced devices too).
/// - A torn last line (a crash mid-write) is skipped with a warning and the
///   next append starts on a fresh line, so no complete line is lost.
public struct JSONLinesSessionHistory: SessionHistory {
    /// The most one month's segment may hold: a million sessions in a month.
    static let segmentReadLimit = 512 << 20
    public let directory: String
    /// This device's id; asked for only when appending, so reading history
    /// never writes.
    let deviceID: @Sendable () throws -> String
    let lockTimeout: Double
    /// The wall clock in nanoseconds, which tells a segment that changed
    /// just now (`segments(matching:)`); a test sets it ahead to take every
    /// file as settled.
    let wallNanoseconds: @Sendable () -> Int64
    private let logger: Logger

    /// How far back from the end of a segment an append looks for its id.
    static let recentWindow = 64 * 1_024

    public init(directory: String, deviceID: @escaping @Sendable () throws -> String, lockTimeout: Double = 5, logger: Logger,
                wallNanoseconds: (@Sendable () -> Int64)? = nil) {
        self.directory = directory
        self.deviceID = deviceID
        self.lockTimeout = lockTimeout
        self.logger = logger
        self.wallNanoseconds = wallNanoseconds ?? { FolderListings.wallNanoseconds() }
    }

    public init(directory: String, deviceID: String, lockTimeout: Double = 5, logger: Logger,
                wallNanoseconds: (@Sendable () -> Int64)? = nil) {
        self.init(directory: directory, deviceID: { deviceID }, lockTimeout: lockTimeout, logger: logger, wallNanoseconds: wallNanoseconds)
    }

    public func append(_ session: Session) async throws {
        let line = try SessionLineCodec.encode(session)
        let folder = directory + "/" + (try deviceID())
        try POSIXFiles.ensureDirectory(folder)
        let path = folder + "/" + SegmentName.month(of: session.startedAt) + ".jsonl"
        let lock = try FileLock(path: path, timeout: lockTimeout, flags: O_RDWR | O_CREAT | O_APPEND)
        let fd = lock.descriptor
        let tail = try Self.tail(of: fd, path: path)
        let id = session.id.description
        if Self.contains(id: id, in: tail) || Self.contains(id: id.uppercased(), in: tail) { return }
        var bytes = line
        if let last = tail.last, last != UInt8(ascii: "\n") { bytes.insert(UInt8(ascii: "\n"), at: 0) }
        try POSIXFiles.writeAll(fd, bytes, path: path)
        guard fsync(fd) == 0 else { throw StoreError.notWritable(path: path, reason: "fsync: \(POSIXFiles.reason())") }
        if tail.isEmpty { POSIXFiles.syncDirectory(folder) }
        _ = consume lock
    }

    /// A byte search for the id in every device's segments of the month of
    /// the session's start (where `append` files it), no line decoded: an
    /// ended session's exact completion asks, and reading the month through
    /// `sessions(matching:)` was 3 M instructions on ten devices' history.
    public func holds(_ session: Session) async throws -> Bool {
        try Self.holds(session.id, in: try segmentsByMonth()[SegmentName.month(of: session.startedAt)] ?? [])
    }

    /// The same search in every month's segments, the newest month first (a
    /// block left up is most likely a recent session's): a miss reads all
    /// of history, which only a block whose session the slot's logs no
    /// longer name asks for.
    public func holds(id: SessionID) async throws -> Bool {
        let months = try segmentsByMonth()
        for month in months.keys.sorted(by: >) where try Self.holds(id, in: months[month] ?? []) { return true }
        return false
    }

    /// Whether one of the segments at `paths` holds a line of the session `id`.
    private static func holds(_ id: SessionID, in paths: [String]) throws -> Bool {
        let id = id.description
        for path in paths {
            guard let bytes = try POSIXFiles.read(path, limit: segmentReadLimit) else { continue }
            if contains(id: id, in: bytes) || contains(id: id.uppercased(), in: bytes) { return true }
        }
        return false
    }

    public func sessions(matching query: HistoryQuery) async throws -> [Session] {
        let amended = try amendedSessions()
        let unamended = try await sessions(matching: query, excluding: amended.ids)
        return amended.apply(to: unamended, query: query)
    }

    /// The sessions as their own lines say, but for the ids in `excluding`.
    private func sessions(matching query: HistoryQuery, excluding: Set<SessionID>) async throws -> [Session] {
        let months = try segmentsByMonth().filter { SegmentName.month($0.key, overlaps: query) }.sorted { $0.key > $1.key }
        // A tag filter needs every line decoded: the ranking by keys alone cannot see tags.
        guard let limit = query.limit, query.tag == nil else {
            // Everything is wanted: decode the segments in parallel, on the
            // global pool whatever executor the caller prefers.
            let segments = try await withThrowingTaskGroup(of: [Session].self) { tasks in
                for path in months.flatMap(\.value) {
                    tasks.addTask(executorPreference: globalConcurrentExecutor) { try read(path, matching: query) }
                }
                return try await tasks.reduce(into: [[Session]]()) { $0.append($1) }
            }
            var all: [Session] = []
            all.reserveCapacity(segments.reduce(0) { $0 + $1.count })
            for segment in segments { all.append(contentsOf: segment) }
            return query.order(excluding.isEmpty ? all : all.filter { !excluding.contains($0.id) })
        }
        // Newest month first: older months are read only while the newer
        // ones hold too few sessions. Lines are ranked by their keys alone;
        // only those that make the cut are decoded whole (a month holds
        // thousands of sessions, `log` shows twenty).
        var segments: [(path: String, bytes: [UInt8])] = []
        var candidates: [Candidate] = []
        for (position, (_, paths)) in months.enumerated() {
            for path in paths {
                guard let bytes = try POSIXFiles.read(path, limit: Self.segmentReadLimit) else { continue }
                segments.append((path, bytes))
                candidates += keys(in: bytes, segment: segments.count - 1, path: path, matching: query, excluding: excluding)
            }
            if candidates.count >= limit || position == months.count - 1 {
                let chosen = best(candidates, in: segments, limit: limit)
                if chosen.count >= limit || position == months.count - 1 { return chosen }
            }
        }
        return []
    }

    /// A line that passes the query's filters, by where it is.
    private struct Candidate {
        var key: SessionLineCodec.LineKey
        var segment: Int
        var range: Range<Int>
    }

    private func keys(in bytes: [UInt8], segment: Int, path: String, matching query: HistoryQuery,
                      excluding: Set<SessionID>) -> [Candidate] {
        var candidates: [Candidate] = []
        bytes.withUnsafeBufferPointer { all in
            forEachLine(all) { line, range, number in
                do {
                    let key = try SessionLineCodec.decodeKey(line, withGroup: query.groupId != nil)
                    if query.matches(startedAt: key.startedAt), query.groupId == nil || key.groupId == query.groupId,
                       !excluding.contains(key.id) {
                        candidates.append(Candidate(key: key, segment: segment, range: range))
                    }
                } catch {
                    warnMalformed(path: path, number: number, torn: range.upperBound == all.count, error: error)
                }
            }
        }
        return candidates
    }

    /// The first `limit` sessions in the query's order (newest first, one per
    /// id), decoding candidates whole in that order; a line that fails to
    /// decode whole is skipped like any malformed line.
    private func best(_ candidates: [Candidate], in segments: [(path: String, bytes: [UInt8])], limit: Int) -> [Session] {
        let ranked = candidates.sorted { lhs, rhs in
            if lhs.key.startedAt != rhs.key.startedAt { return lhs.key.startedAt > rhs.key.startedAt }
            return HistoryQuery.precedes(lhs.key.id, rhs.key.id)
        }
        var chosen: [Session] = []
        for candidate in ranked {
            let again = chosen.last?.id == candidate.key.id
            if chosen.count >= limit, !again { break }
            let (path, bytes) = segments[candidate.segment]
            do {
                let session = try bytes.withUnsafeBufferPointer { all in
                    try SessionLineCodec.decode(UnsafeBufferPointer(rebasing: all[candidate.range]))
                }
                // A second record of one session: the one every device keeps.
                if again {
                    if HistoryQuery.keeps(session, over: chosen[chosen.count - 1]) { chosen[chosen.count - 1] = session }
                } else {
                    chosen.append(session)
                }
            } catch {
                let number = bytes[..<candidate.range.lowerBound].reduce(1) { $0 + ($1 == 0x0A ? 1 : 0) }
                warnMalformed(path: path, number: number, torn: candidate.range.upperBound == bytes.count, error: error)
            }
        }
        return chosen
    }

    /// Every segment of every device, by month key (`2026-11`). A sync
    /// tool's conflict copy of a segment (`2026-11.sync-conflict-….jsonl`)
    /// is more lines of that month (ids are kept once); its temporary and
    /// partial files are never read (`SyncToolFiles`).
    func segmentsByMonth() throws -> [String: [String]] {
        var result: [String: [String]] = [:]
        let devices = POSIXFiles.names(in: directory)
        for device in devices where !device.hasPrefix(".") {
            let folder = directory + "/" + device
            for file in POSIXFiles.names(in: folder) {
                guard !SyncToolFiles.isTemporary(file) else { continue }
                let original = SyncToolFiles.original(of: file)
                guard original.hasSuffix(".jsonl"), original != Self.amendmentsFile else { continue }
                result[String(original.dropLast(6)), default: []].append(folder + "/" + file)
            }
        }
        return result
    }

    /// Decodes every complete line of a segment and keeps those matching the
    /// query (its limit aside); malformed lines are skipped with a warning
    /// naming the file and line.
    func read(_ path: String, matching query: HistoryQuery = .all, malformed: ((Int) -> Void)? = nil) throws -> [Session] {
        try readLines(path, malformed: malformed) { line in
            let session = try SessionLineCodec.decode(line)
            return query.matches(session) ? session : nil
        }
    }

    /// Decodes each complete line of a segment with `decode`, keeping what
    /// it returns; malformed lines are skipped with a warning naming the
    /// file and line.
    func readLines<T>(_ path: String, malformed: ((Int) -> Void)? = nil,
                              _ decode: (UnsafeBufferPointer<UInt8>) throws -> T?) throws -> [T] {
        guard let bytes = try POSIXFiles.read(path, limit: Self.segmentReadLimit) else { return [] }
        var values: [T] = []
        values.reserveCapacity(bytes.count / 256)
        bytes.withUnsafeBufferPointer { all in
            forEachLine(all) { line, range, number in
                do {
                    if let value = try decode(line) { values.append(value) }
                } catch {
                    malformed?(number)
                    warnMalformed(path: path, number: number, torn: range.upperBound == all.count, error: error)
                }
            }
        }
        return values
    }

    /// Calls `body` with each line that is not blank, its byte range and its
    /// line number.
    private func forEachLine(_ all: UnsafeBufferPointer<UInt8>, _ body: (UnsafeBufferPointer<UInt8>, Range<Int>, Int) -> Void) {
        var start = 0, number = 0
        while start < all.count {
            number += 1
            let end = memchr(all.baseAddress! + start, 0x0A, all.count - start)
                .map { all.baseAddress!.distance(to: $0.assumingMemoryBound(to: UInt8.self)) } ?? all.count
            let line = UnsafeBufferPointer(rebasing: all[start..<end])
            defer { start = end + 1 }
            if line.allSatisfy({ $0 == 0x20 || $0 == 0x0D }) { continue }
            body(line, start..<end, number)
        }
    }

    private func warnMalformed(path: String, number: Int, torn: Bool, error: any Error) {
        logger.warning("skipping \(torn ? "a torn last line" : "a malformed line")",
                       metadata: ["file": "\(path)", "line": "\(number)", "reason": "\(error)"])
    }

    /// What `doctor` reports of the history: segments, sessions, and the
    /// lines that cannot be read (file and line number).
    public func audit() throws -> HistoryAudit {
        var audit = HistoryAudit()
        for path in try segmentsByMonth().values.joined().sorted() {
            audit.segments += 1
            audit.sessions += try read(path) { audit.malformed.append(HistoryAudit.Line(path: path, number: $0)) }.count
        }
        return audit
    }

    private static func tail(of fd: Int32, path: String) throws -> [UInt8] {
        var info = stat()
        guard fstat(fd, &info) == 0 else { throw StoreError.unreadable(path: path, reason: POSIXFiles.reason()) }
        let size = Int(info.st_size)
        let count = min(size, recentWindow)
        var bytes = [UInt8](repeating: 0, count: count)
        let read = bytes.withUnsafeMutableBytes { pread(fd, $0.baseAddress, count, off_t(size - count)) }
        guard read == count else { throw StoreError.unreadable(path: path, reason: POSIXFiles.reason()) }
        return bytes
    }

    private static func contains(id: String, in tail: [UInt8]) -> Bool {
        var found = false
        tail.withUnsafeBufferPointer { haystack in
            occurrences(of: Array("\"id\":\"\(id)\"".utf8), in: haystack) { _ in
                found = true
                return false
            }
        }
        return found
    }

    /// Calls `body` with the offset just past each occurrence of `needle`,
    /// in order, while it returns true.
    static func occurrences(of needle: [UInt8], in haystack: UnsafeBufferPointer<UInt8>, _ body: (Int) -> Bool) {
        guard let base = haystack.baseAddress, haystack.count >= needle.count else { return }
        // memmem, not memchr on the first byte and memcmp: a needle starting
        // with a quote stopped at every quote of the 64 KiB tail (10,000
        // calls, a seventh of a `retime stop`).
        needle.withUnsafeBufferPointer { needle in
            var position = 0
            while position <= haystack.count - needle.count {
                guard let hit = retime_memmem(base + position, haystack.count - position, needle.baseAddress, needle.count)
                else { return }
                let offset = base.distance(to: hit.assumingMemoryBound(to: UInt8.self))
                guard body(offset + needle.count) else { return }
                position = offset + 1
            }
        }
    }
}
