#if canImport(Glibc)
import Domain
import FoundationEssentials
#endif

extension ReplicatedLogStore {
    /// The suites of a data folder as retime shares them: a group's targets
    /// merge per target, and the session slot is one value (two devices'
    /// sessions are never mixed field by field), a session's ending final
    /// over any edit of it made unseen (`WholeValueEnding`). The slot's log
    /// is compacted at each `start` and every `sessionCompactionInterval`
    /// lines: each of its lines is a whole session, the first write of a
    /// `start` or `stop` merges them all, and a `stop` after 57 lines ran
    /// 6.1 M instructions where one after 12 ran 3.7 M (docs/performance.md).
    public static func dataFolder(devices directory: String, deviceID: @escaping @Sendable () throws -> String,
                                  now: @escaping @Sendable () -> Date, boot: @escaping @Sendable () -> BootTimeReading? = { nil },
                                  lockTimeout: Double = 5, compactionInterval: Int = 64) -> ReplicatedLogStore {
        ReplicatedLogStore(directory: directory, deviceID: deviceID, now: now, boot: boot, setFields: ["groups": ["targets"]],
                           wholeValueSuites: ["session"], lockTimeout: lockTimeout, compactionInterval: compactionInterval,
                           compactionIntervals: ["session": min(compactionInterval, sessionCompactionInterval)],
                           endings: ["session": .sessions])
    }

    /// Lines of the session slot's own log between compactions, at most: it
    /// is compacted at each `start` too (see `update`), so it holds two
    /// lines when a `stop` reads it and five when the next `start` does; a
    /// daemon that moves a long cycle's phases writes one line per edge.
    public static let sessionCompactionInterval = 8
}
