#if canImport(Glibc)
import Domain
import FoundationEssentials
import Glibc
import JSONDocument
import Synchronization
#endif

/// How far another device's clock is from this machine's, read from the
/// data folder (semantics.md, "Devices you can trust", "Clocks"). Each line
/// of a device's change logs holds its clock's reading when it wrote it
/// (the hybrid stamp's wall part when its counter is 0, else the line's
/// `wall`), and a log's change time says when it arrived here, on this
/// machine's clock. A reading against its arrival is the other clock's
/// offset less the time the change took to arrive: never above the truth
/// (unless that clock was moved since it wrote), near it whenever a change
/// arrives promptly; a late copy (a laptop asleep, a link down) makes the
/// other clock look behind, never ahead. So the estimate is the best such
/// reading seen (the most prompt), kept: one late copy does not make a
/// clock that agrees look an hour behind.
///
/// What is kept is placed on this machine's boot-time clock, which nothing
/// moves (`devices/<this id>/snapshots/peer-clocks.json`, a cache: lost, the
/// next look makes it again), so moving this machine's wall clock (a
/// person, NTP) changes the estimate by just as much.
/// The first line of each write also says the writer's wall clock against
/// its boot-time clock (`ChangeLine.clockMark`): when a newer one says that
/// device's clock was moved, what was kept of it moves by as much.
final class PeerClocks: Sendable {
    /// `DATA_DIR/devices`.
    let directory: String
    let thisDevice: @Sendable () throws -> String
    /// This machine's wall and boot-time clocks.
    let clock: any RetimeShared.Clock
    /// When the file at a path arrived here, when told otherwise than by
    /// its change time (the last time anything wrote it on this machine:
    /// a sync tool's rename).
    let arrival: (@Sendable (String) -> Date?)?
    /// Estimates made by this process, per device: each command asks a
    /// few times, and the files do not change within one.
    private let made = Mutex<[String: TimeInterval?]>([:])

    /// How much of the end of each log is read for its last line.
    static let tailBytes = 16 << 10
    static let anchorsFile = "peer-clocks.json"

    init(directory: String, thisDevice: @escaping @Sendable () throws -> String, clock: any RetimeShared.Clock,
         arrival: (@Sendable (String) -> Date?)? = nil) {
        self.directory = directory
        self.thisDevice = thisDevice
        self.clock = clock
        self.arrival = arrival
    }

    /// A file's change time.
    static func changeTime(_ info: stat) -> Date {
        Date(timeIntervalSince1970: Double(info.st_ctim.tv_sec) + Double(info.st_ctim.tv_nsec) / 1e9)
    }

    func offset(of device: String) -> TimeInterval? {
        if let known = made.withLock({ $0[device] }) { return known }
        let estimate = estimate(device)
        made.withLock { $0[device] = estimate }
        return estimate
    }

    /// The line of one of another device's logs that says most of its
    /// clock (the one that came most promptly): its stamp, its clock's
    /// reading, and when it arrived on this machine's boot-time clock; and
    /// the stamp of the last line of that log looked at since.
    struct Anchor: Equatable {
        var at: HybridTimestamp
        var reading: Date
        var bootID: String
        var arrivedAtBootSeconds: Double
        var seen: HybridTimestamp
        /// That device's `clockMark` when it wrote the line (or the last
        /// one it wrote since, the reading moved with it).
        var mark: Mark?
        /// That device's boot-time reading (seconds) when it wrote `mark`:
        /// a kept mark newer than any its logs still say here (the log
        /// that said it no longer reads) is still the newest.
        var markSeconds: Double?
    }

    /// A device's wall clock against its boot: the boot, and the wall time
    /// it began at (milliseconds).
    struct Mark: Equatable {
        var boot: String
        var epoch: Int64
    }

    private func estimate(_ device: String) -> TimeInterval? {
        guard HybridTimestamp.isDeviceID(device) else { return nil }
        let now = clock.now(), boot = clock.bootTime()
        var lines = lastLines(of: device)
        guard let boot else { return lines.map { $0.reading.timeIntervalSince($0.arrived) }.max() }
        var anchors = loadAnchors()
        let before = anchors[device] ?? [:]
        // Kept on another boot, the boot-time clock no longer places them.
        var logs = before.filter { $0.value.bootID == boot.bootID }
        // That device's wall clock against its boot as it last wrote: a
        // clock moved since a line was written moves what that line (or one
        // kept) says by as much; a boot since leaves it saying nothing sure.
        if let (mark, markSeconds) = Self.newestMark(lines, kept: Array(logs.values)) {
            // How far that clock moved since `was`; nil: it booted since.
            func moved(since was: Mark?) -> TimeInterval? {
                guard let was else { return 0 }
                return was.boot == mark.boot ? Double(mark.epoch - was.epoch) / 1_000 : nil
            }
            lines = lines.compactMap { line in
                guard let shift = moved(since: line.mark) else { return nil }
                var line = line
                line.reading = line.reading.addingTimeInterval(shift)
                if line.mark != nil { (line.mark, line.markSeconds) = (mark, markSeconds) }
                return line
            }
            for (log, kept) in logs {
                guard let shift = moved(since: kept.mark) else { logs[log] = nil; continue }
                logs[log]?.reading = kept.reading.addingTimeInterval(shift)
                if kept.mark != nil {
                    logs[log]?.mark = mark
                    logs[log]?.markSeconds = markSeconds
                }
            }
        }
        func offset(of anchor: Anchor) -> TimeInterval {
            anchor.reading.addingTimeInterval(boot.seconds - anchor.arrivedAtBootSeconds).timeIntervalSince(now)
        }
        for line in lines where logs[line.log]?.seen != line.at {
            // First seen now: its arrival placed on the boot-time clock.
            let fresh = Anchor(at: line.at, reading: line.reading, bootID: boot.bootID,
                               arrivedAtBootSeconds: boot.seconds - now.timeIntervalSince(line.arrived), seen: line.at, mark: line.mark,
                               markSeconds: line.markSeconds)
            guard let kept = logs[line.log], offset(of: kept) >= offset(of: fresh) else {
                logs[line.log] = fresh
                continue
            }
            // The one kept came more promptly: it stays.
            logs[line.log]?.seen = line.at
        }
        if logs != before {
            anchors[device] = logs
            saveAnchors(anchors)
        }
        return logs.values.map(offset(of:)).max()
    }

    /// The line of a log that says most of its writer's clock.
    struct Line {
        var log: String
        var at: HybridTimestamp
        var reading: Date
        var arrived: Date
        /// The writer's `clockMark` when it wrote the line (or one it wrote
        /// since, the reading moved with it), and its boot-time reading then.
        var mark: Mark?
        var markSeconds: Double?
        /// The newest mark of the log, with the writer's boot-time reading
        /// when it wrote it.
        var written: (mark: Mark, bootSeconds: Double)?
    }

    /// The mark the writer wrote last, with the boot-time reading it was
    /// written at: on the boot of the log written last (by hybrid stamp:
    /// nothing else compares two boots, and boots are rare), the one
    /// written at the latest boot-time reading. Stamps alone would not do
    /// within a boot: each log's hybrid clock runs on its own, and a clock
    /// set back writes lower stamps than before. Within that boot, the
    /// marks of the anchors `kept` count too: the log that said the newest
    /// may read no more (a damaged copy, left out), and the older marks of
    /// the logs that still read would move what was kept of it back by the
    /// clock's last move.
    static func newestMark(_ lines: [Line], kept: [Anchor] = []) -> (mark: Mark, seconds: Double)? {
        var said = lines.compactMap { line in line.written.map { (at: line.at, mark: $0.mark, seconds: $0.bootSeconds) } }
        let keptSaid = kept.compactMap { anchor in
            anchor.mark.flatMap { mark in anchor.markSeconds.map { (at: anchor.seen, mark: mark, seconds: $0) } }
        }
        guard let boot = (said.max { $0.at < $1.at } ?? keptSaid.max { $0.at < $1.at })?.mark.boot else { return nil }
        said += keptSaid
        return said.filter { $0.mark.boot == boot }.max { $0.seconds < $1.seconds }.map { ($0.mark, $0.seconds) }
    }

    /// The last line that holds `device`'s clock reading of each of its
    /// logs here, with the log's name and arrival. Each says the other
    /// clock's offset less a delay. A conflict copy is old by nature (a
    /// long delay: it can only make that clock look further behind than
    /// the other logs do), but it may be all this device has of a session
    /// yet: judged on a clock taken as behind, that session ends late,
    /// never early.
    private func lastLines(of device: String) -> [Line] {
        let folder = directory + "/" + device + "/changes"
        var lines: [Line] = []
        for name in POSIXFiles.names(in: folder).sorted() where name.hasSuffix(".jsonl") && !SyncToolFiles.isTemporary(name) {
            let path = folder + "/" + name
            guard let (info, readings) = Self.lastReadings(path, of: device) else { continue }
            let arrived = arrival?(path) ?? Self.changeTime(info)
            // A reading more than the hybrid clock's horizon ahead of its
            // arrival is no clock (a clock that once read year 4821, a hand
            // edit): the line before it says more.
            let horizon = Double(HybridClock.horizon) / 1_000
            guard let index = readings.firstIndex(where: { $0.reading.timeIntervalSince(arrived) <= horizon }) else { continue }
            let line = readings[index]
            // The newest mark of the log (the first line of a write has it)
            // with the boot-time reading it was written at, and the one in
            // force when the line was.
            let written = readings.lazy.compactMap { line in
                line.mark.map { (mark: $0, bootSeconds: line.reading.timeIntervalSince1970 - Double($0.epoch) / 1_000) }
            }.first
            let inForce = readings[index...].lazy.compactMap { line in
                line.mark.map { (mark: $0, seconds: line.reading.timeIntervalSince1970 - Double($0.epoch) / 1_000) }
            }.first
            lines.append(Line(log: name, at: line.at, reading: line.reading, arrived: arrived, mark: inForce?.mark, markSeconds: inForce?.seconds,
                              written: written))
        }
        return lines
    }

    /// The file's status and the lines of `device` on the end of the log
    /// at `path` that hold its clock's reading, newest first, each with its
    /// stamp; nil when it cannot be read.
    static func lastReadings(_ path: String, of device: String) -> (stat, [(at: HybridTimestamp, reading: Date, mark: Mark?)])? {
        let fd = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK)
        guard fd >= 0 else { return nil }
        defer { close(fd) }
        var info = stat()
        guard fstat(fd, &info) == 0, (info.st_mode & S_IFMT) == S_IFREG else { return nil }
        let size = Int(info.st_size), count = min(size, tailBytes)
        guard count > 0 else { return (info, []) }
        var bytes = [UInt8](repeating: 0, count: count)
        guard bytes.withUnsafeMutableBytes({ pread(fd, $0.baseAddress, count, off_t(size - count)) }) == count else { return nil }
        // Whole lines only, the last ones first: the newest reading is at
        // the end (a device writes its log in its clock's order).
        var lines = bytes.split(separator: 0x0A, omittingEmptySubsequences: false)
        lines.removeLast()
        if count < size, !lines.isEmpty { lines.removeFirst() }
        var readings: [(at: HybridTimestamp, reading: Date, mark: Mark?)] = []
        for line in lines.reversed().prefix(64) {
            guard case .object(let members)? = try? JSONText.parse(Array(line)),
                  case .string(let text)? = members["at"], let at = HybridTimestamp(text: text), at.device == device,
                  let wall = ChangeLine.physicalReading(at: at, wall: members["wall"]) else { continue }
            let mark = ChangeLine.clockMark(members["clock"]).map { Mark(boot: $0.boot, epoch: $0.epoch) }
            readings.append((at, Date(timeIntervalSince1970: Double(wall) / 1_000), mark))
        }
        return (info, readings)
    }

    private var anchorsPath: String? {
        guard let id = try? thisDevice() else { return nil }
        return directory + "/" + id + "/snapshots/" + Self.anchorsFile
    }

    /// `{"<device>":{"<log>":{"at":"…","reading":ms,"boot":"<boot id>","arrived":seconds,"seen":"…","mark":"<boot>:<epoch>","markAt":seconds},…},…}`;
    /// empty when missing or damaged (it is a cache).
    private func loadAnchors() -> [String: [String: Anchor]] {
        guard let path = anchorsPath, let bytes = try? POSIXFiles.read(path, limit: 1 << 20),
              case .object(let members)? = try? JSONText.parse(bytes) else { return [:] }
        var anchors: [String: [String: Anchor]] = [:]
        for (device, member) in members {
            guard case .object(let logs) = member else { continue }
            for (log, entry) in logs {
                guard case .object(let fields) = entry, case .string(let text)? = fields["at"], let at = HybridTimestamp(text: text),
                      case .string(let seenText)? = fields["seen"], let seen = HybridTimestamp(text: seenText),
                      case .int(let reading)? = fields["reading"], case .string(let boot)? = fields["boot"],
                      let arrived = fields["arrived"].flatMap(Self.number) else { continue }
                let mark = ChangeLine.clockMark(fields["mark"]).map { Mark(boot: $0.boot, epoch: $0.epoch) }
                anchors[device, default: [:]][log] = Anchor(at: at, reading: Date(timeIntervalSince1970: Double(reading) / 1_000),
                                                            bootID: boot, arrivedAtBootSeconds: arrived, seen: seen, mark: mark,
                                                            markSeconds: fields["markAt"].flatMap(Self.number))
            }
        }
        return anchors
    }

    private static func number(_ value: JSONValue) -> Double? {
        switch value {
        case .int(let number): Double(number)
        case .double(let number): number
        default: nil
        }
    }

    /// Written aside and renamed, without `fsync`: a cache, rebuilt from
    /// the next look when lost. Never made in a folder this device does
    /// not have yet.
    private func saveAnchors(_ anchors: [String: [String: Anchor]]) {
        guard let path = anchorsPath, access(POSIXFiles.parentDirectory(of: POSIXFiles.parentDirectory(of: path)), F_OK) == 0 else { return }
        let members = anchors.mapValues { logs -> JSONValue in
            .object(logs.mapValues { anchor in
                var fields: [String: JSONValue] = ["at": .string(anchor.at.description), "reading": .int(ChangeLine.milliseconds(of: anchor.reading)),
                                                   "boot": .string(anchor.bootID), "arrived": .double(anchor.arrivedAtBootSeconds),
                                                   "seen": .string(anchor.seen.description)]
                if let mark = anchor.mark { fields["mark"] = .string(mark.boot + ":" + String(mark.epoch)) }
                if let seconds = anchor.markSeconds { fields["markAt"] = .double(seconds) }
                return .object(fields)
            })
        }
        guard let bytes = try? JSONTextWriter.write(.object(members), layout: .compact) else { return }
        try? POSIXFiles.ensureDirectory(POSIXFiles.parentDirectory(of: path))
        POSIXFiles.writeCache(bytes + [0x0A], to: path)
    }
}
