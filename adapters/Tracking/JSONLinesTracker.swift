import Domain
import FoundationEssentials
#if canImport(Glibc)
import Glibc
#endif

/// Appends each event as one JSON line to `events.jsonl`, rotated by size:
/// a record hooks and insight can read back.
public struct JSONLinesTracker: Tracker {
    public let file: RotatingFile

    public init(file: RotatingFile) {
        self.file = file
    }

    /// Appends the line JSONEncoder wrote (sorted keys, dates as Timestamp text).
    public func track(_ event: TrackedEvent) {
        guard let line = TrackedEventLine.line(event) else { return }
        file.append(String(decoding: line, as: UTF8.self))
    }

    /// The events in the current file, oldest first; unreadable lines skipped.
    public func recorded() throws -> [TrackedEvent] {
        guard let bytes = try POSIXFiles.read(file.path) else { return [] }
        return bytes.split(separator: UInt8(ascii: "\n")).compactMap { try? JSONText.decode(TrackedEvent.self, from: Array($0)) }
    }
}
