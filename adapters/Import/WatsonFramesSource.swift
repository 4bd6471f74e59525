import Domain
import FoundationEssentials
#if canImport(Glibc)
import Glibc
#endif

/// Reads Watson's `frames` file (given itself or its folder): a JSON array of frames
/// `[start, stop, project, id, tags, updated_at]`, times in Unix seconds.
/// The project becomes the group; the frame's id (32 hex digits) the
/// session's id. A frame that does not fit is reported with its line.
public struct WatsonFramesSource: HistoryImportSource {
    public init() {}

    public func read(_ path: String) async throws -> ImportBatch {
        let path = ImportError.file(path, orInside: "frames")
        let bytes = try ImportError.bytes(of: path)
        return try bytes.withUnsafeBufferPointer { buffer in
            do {
                return try Self.frames(in: buffer)
            } catch let malformed as JSONByteReader.Malformed {
                throw ImportError.notTheFormat(path: path, expected: "a Watson frames file", reason: "not a JSON array of frames (\(malformed))")
            }
        }
    }

    /// Reads the top-level array frame by frame, straight from the bytes
    /// (JSONSerialization would build 100,000 arrays of boxed values first,
    /// and could not say on which line a bad frame was). A frame that does
    /// not fit is skipped as a whole and reported; broken JSON ends the read.
    private static func frames(in buffer: UnsafeBufferPointer<UInt8>) throws -> ImportBatch {
        var reader = JSONByteReader(buffer)
        var batch = ImportBatch()
        var line = 1, counted = 0
        try reader.expect(UInt8(ascii: "["))
        if reader.take(UInt8(ascii: "]")) { return batch }
        reader.skipWhitespace()
        // `[start, stop, ...]` alone: one frame, not a list of them. Read as
        // a list, each of its six values would be a bad frame of its own.
        if let first = reader.peek(), first == UInt8(ascii: "-") || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(first) {
            throw JSONByteReader.Malformed(description: "it holds a single frame, not an array of frames: wrap it in [ ]")
        }
        repeat {
            reader.skipWhitespace()
            let start = reader.index
            line += newlines(in: buffer, from: counted, to: start)
            counted = start
            do {
                var record = try frame(&reader)
                record.line = line
                batch.records.append(record)
            } catch let problem as Problem {
                batch.problems.append(.init(line: line, message: problem.message))
                reader.rewind(to: start)
                try reader.skipValue()
            } catch is JSONByteReader.Malformed {
                batch.problems.append(.init(line: line, message: Problem.shape.message))
                reader.rewind(to: start)
                try reader.skipValue()
            }
        } while reader.take(UInt8(ascii: ","))
        try reader.expect(UInt8(ascii: "]"))
        guard reader.atEnd else { throw JSONByteReader.Malformed(description: "bytes after the array") }
        return batch
    }

    private struct Problem: Error {
        let message: String
        static let shape = Problem(message: "a frame is [start, stop, project, id, tags, updated_at]")
    }

    /// `[start, stop, project, id, tags, updated_at]`; the last two may be missing.
    private static func frame(_ reader: inout JSONByteReader) throws -> ImportBatch.Record {
        guard reader.take(UInt8(ascii: "[")) else { throw Problem.shape }
        let start = try time(&reader)
        try reader.expect(UInt8(ascii: ","))
        let stop = try time(&reader)
        try reader.expect(UInt8(ascii: ","))
        guard reader.peek() == UInt8(ascii: "\"") else { throw Problem(message: "the project must be a string") }
        let project = try reader.readString()
        guard !project.trimmedSpaces.isEmpty else { throw Problem(message: "the project must be a non-empty string") }
        try reader.expect(UInt8(ascii: ","))
        let frameID = reader.peek() == UInt8(ascii: "\"") ? try reader.readString() : nil
        if frameID == nil { try reader.skipValue() }
        var tags: [String] = []
        if reader.take(UInt8(ascii: ",")) {
            if reader.take(UInt8(ascii: "[")), !reader.take(UInt8(ascii: "]")) {
                repeat {
                    if reader.peek() == UInt8(ascii: "\"") { tags.append(try reader.readString()) } else { try reader.skipValue() }
                } while reader.take(UInt8(ascii: ","))
                try reader.expect(UInt8(ascii: "]"))
            } else if reader.peek() != UInt8(ascii: ",") && reader.peek() != UInt8(ascii: "]") {
                try reader.skipValue()
            }
            while reader.take(UInt8(ascii: ",")) { try reader.skipValue() }   // updated_at, and anything after
        }
        try reader.expect(UInt8(ascii: "]"))
        guard stop > start else { throw Problem(message: "the frame stops before it starts") }
        let id = frameID.flatMap(ImportIdentity.sessionID(hex:)) ?? ImportIdentity.sessionID(for: "watson|\(start)|\(stop)|\(project)")
        let session = ImportIdentity.session(id: id, start: Date(timeIntervalSince1970: start), end: Date(timeIntervalSince1970: stop),
                                             tags: tags, note: nil, tool: "watson")
        return ImportBatch.Record(session: session, groupName: project)
    }

    /// A Unix time: a JSON number (not `true`, not a string).
    private static func time(_ reader: inout JSONByteReader) throws -> Double {
        guard let next = reader.peek(), next == UInt8(ascii: "-") || (48...57).contains(next),
              let seconds = try? reader.readDouble(), seconds.isFinite else {
            throw Problem(message: "start and stop must be Unix timestamps")
        }
        return seconds
    }

    private static func newlines(in buffer: UnsafeBufferPointer<UInt8>, from: Int, to: Int) -> Int {
        var count = 0
        for index in from..<to where buffer[index] == 0x0A { count += 1 }
        return count
    }
}
