import Domain
import Foundation

/// Reads Watson's `frames` file: a JSON array of frames
/// `[start, stop, project, id, tags, updated_at]`, times in Unix seconds.
/// The project becomes the group; the frame's id (32 hex digits) the
/// session's id. A frame that does not fit is reported with its line.
public struct WatsonFramesSource: HistoryImportSource {
    public init() {}

    public func read(_ path: String) async throws -> ImportBatch {
        let bytes: [UInt8]
        do {
            guard let read = try POSIXFiles.read(path) else { throw ImportError.unreadable(path: path, reason: "no such file") }
            bytes = read
        } catch let error as ImportError { throw error } catch { throw ImportError.unreadable(path, error) }
        let frames: [Any]
        do {
            guard let array = try JSONSerialization.jsonObject(with: Data(bytes)) as? [Any] else {
                throw ImportError.notTheFormat(path: path, expected: "a Watson frames file", reason: "not a JSON array")
            }
            frames = array
        } catch let error as ImportError { throw error } catch {
            throw ImportError.notTheFormat(path: path, expected: "a Watson frames file", reason: "not JSON (\(error.localizedDescription))")
        }
        let lines = TopLevelElements.lines(in: bytes)
        var batch = ImportBatch()
        batch.records.reserveCapacity(frames.count)
        for (index, frame) in frames.enumerated() {
            let line = index < lines.count ? lines[index] : 0
            switch Self.record(frame) {
            case .success(let record): batch.records.append(record)
            case .failure(let problem): batch.problems.append(.init(line: line, message: problem.message))
            }
        }
        return batch
    }

    private struct Problem: Error { let message: String }

    private static func record(_ frame: Any) -> Result<ImportBatch.Record, Problem> {
        guard let fields = frame as? [Any], fields.count >= 4 else {
            return .failure(Problem(message: "a frame is [start, stop, project, id, tags, updated_at]"))
        }
        guard let start = seconds(fields[0]), let stop = seconds(fields[1]) else {
            return .failure(Problem(message: "start and stop must be Unix timestamps"))
        }
        guard stop > start else { return .failure(Problem(message: "the frame stops before it starts")) }
        guard let project = fields[2] as? String, !project.trimmingCharacters(in: .whitespaces).isEmpty else {
            return .failure(Problem(message: "the project must be a non-empty string"))
        }
        let tags = (fields.count > 4 ? fields[4] as? [Any] : nil)?.compactMap { $0 as? String } ?? []
        let id = (fields[3] as? String).flatMap(ImportIdentity.sessionID(hex:))
            ?? ImportIdentity.sessionID(for: "watson|\(start)|\(stop)|\(project)")
        let session = ImportIdentity.session(id: id, start: Date(timeIntervalSince1970: start), end: Date(timeIntervalSince1970: stop),
                                             tags: tags, note: nil, tool: "watson")
        return .success(ImportBatch.Record(session: session, groupName: project))
    }

    private static func seconds(_ value: Any) -> Double? {
        // JSON true and false arrive as NSNumbers of type char ("c"): they are not times.
        guard let number = value as? NSNumber, String(cString: number.objCType) != "c" else { return nil }
        let seconds = number.doubleValue
        return seconds.isFinite ? seconds : nil
    }
}

/// The line on which each element of a top-level JSON array begins, found
/// by one pass over the bytes (JSONSerialization does not say where things were).
enum TopLevelElements {
    static func lines(in bytes: [UInt8]) -> [Int] {
        var lines: [Int] = []
        var line = 1, depth = 0, inString = false, escaped = false, expectingElement = false
        for byte in bytes {
            if byte == 0x0A { line += 1 }
            if inString {
                if escaped { escaped = false } else if byte == 0x5C { escaped = true } else if byte == 0x22 { inString = false }
                continue
            }
            switch byte {
            case 0x20, 0x09, 0x0A, 0x0D: continue
            case 0x5B, 0x7B:   // [ {
                if depth == 1, expectingElement { lines.append(line); expectingElement = false }
                depth += 1
                if depth == 1 { expectingElement = true }
            case 0x5D, 0x7D: depth -= 1   // ] }
            case 0x2C: if depth == 1 { expectingElement = true }   // ,
            default:
                if depth == 1, expectingElement { lines.append(line); expectingElement = false }
                if byte == 0x22 { inString = true }
            }
        }
        return lines
    }
}
