import Domain
import FoundationEssentials
#if canImport(Glibc)
import Glibc
#endif

/// Reads a Timewarrior data directory: the monthly `YYYY-MM.data` files,
/// whose lines are `inc START - END # tag "other tag" # "annotation"` with
/// times like `20250105T060000Z`. The first tag becomes the group (no tag:
/// group `timewarrior`), the others tags, the annotation the note. An open
/// interval (no END: still running) is skipped and reported, as is any
/// line that does not parse.
public struct TimewarriorSource: HistoryImportSource {
    /// The group of intervals that have no tag.
    public static let untaggedGroup = ImportGrouping.untagged

    public init() {}

    public func read(_ path: String) async throws -> ImportBatch {
        var isDirectory = false
        guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) else {
            throw ImportError.unreadable(path: path, reason: "no such directory")
        }
        guard isDirectory else {
            throw ImportError.notTheFormat(path: path, expected: "a Timewarrior data directory", reason: "it is a file")
        }
        func monthFiles(_ directory: String) -> [String] {
            POSIXFiles.names(in: directory).filter { $0.wholeMatch(of: /\d{4}-\d{2}\.data/) != nil }.sorted()
        }
        // People know the database's root (`~/.timewarrior`, where `timew`
        // keeps its config); the month files are in its `data` folder.
        var path = path
        var files = monthFiles(path)
        if files.isEmpty, !monthFiles(path + "/data").isEmpty {
            path += "/data"
            files = monthFiles(path)
        }
        guard !files.isEmpty else {
            throw ImportError.notTheFormat(path: path, expected: "a Timewarrior data directory",
                                           reason: "it holds no YYYY-MM.data files, nor does a data folder in it")
        }
        var batch = ImportBatch()
        // Problems carry a running line number over the files in order, and name the file.
        for file in files {
            let full = path + "/" + file
            let bytes = try ImportError.bytes(of: full)
            for (offset, line) in String(decoding: bytes, as: UTF8.self).split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
                let text = line.trimmed
                guard !text.isEmpty else { continue }
                switch Self.record(text) {
                case .success(var record):
                    record.line = offset + 1
                    record.file = file
                    batch.records.append(record)
                case .failure(let problem): batch.problems.append(.init(line: offset + 1, message: "\(file): \(problem.message)"))
                }
            }
        }
        return batch
    }

    private struct Problem: Error { let message: String }

    private static func record(_ line: String) -> Result<ImportBatch.Record, Problem> {
        let sections = split(line)
        let interval = sections[0].split(separator: " ", omittingEmptySubsequences: true)
        guard interval.first == "inc" else { return .failure(Problem(message: "not an interval line (expected 'inc ...')")) }
        guard interval.count >= 2, let start = time(interval[1]) else { return .failure(Problem(message: "no valid start time")) }
        guard interval.count >= 4, interval[2] == "-" else {
            return .failure(Problem(message: interval.count == 2 ? "an open interval (still running) is not imported" : "expected 'START - END'"))
        }
        guard let end = time(interval[3]) else { return .failure(Problem(message: "no valid end time")) }
        guard end > start else { return .failure(Problem(message: "the interval ends before it starts")) }
        let tags = sections.count > 1 ? words(sections[1]) : []
        let note = sections.count > 2 ? words(sections[2]).joined(separator: " ") : nil
        let id = ImportIdentity.sessionID(for: "timewarrior|\(line)")
        let session = ImportIdentity.session(id: id, start: start, end: end, tags: Array(tags.dropFirst()),
                                             note: note.flatMap { $0.isEmpty ? nil : $0 }, tool: "timewarrior")
        return .success(ImportBatch.Record(session: session, groupName: tags.first ?? untaggedGroup))
    }

    /// The line cut at each ` #` outside quotes: interval, tags, annotation.
    private static func split(_ line: String) -> [String] {
        var sections: [String] = [], current = "", quoted = false, escaped = false
        for character in line {
            if escaped { escaped = false; current.append(character); continue }
            if character == "\\", quoted { escaped = true; current.append(character); continue }
            if character == "\"" { quoted.toggle() }
            if character == "#", !quoted, current.isEmpty || current.last == " " {
                sections.append(current.trimmedSpaces)
                current = ""
                continue
            }
            current.append(character)
        }
        sections.append(current.trimmedSpaces)
        return sections
    }

    /// Space-separated words; a word in double quotes may hold spaces and `\"`.
    private static func words(_ text: String) -> [String] {
        var words: [String] = [], current = "", quoted = false, escaped = false, started = false
        for character in text {
            if escaped { current.append(character); escaped = false; continue }
            if quoted, character == "\\" { escaped = true; continue }
            if character == "\"" { quoted.toggle(); started = true; continue }
            if character == " ", !quoted {
                if started { words.append(current) }
                current = ""
                started = false
                continue
            }
            current.append(character)
            started = true
        }
        if started { words.append(current) }
        return words
    }

    /// `20250105T060000Z`, UTC.
    private static func time<S: StringProtocol>(_ text: S) -> Date? {
        let digits = Array(text.utf8)
        guard digits.count == 16, digits[8] == UInt8(ascii: "T"), digits[15] == UInt8(ascii: "Z") else { return nil }
        let iso = "\(text.prefix(4))-\(text.dropFirst(4).prefix(2))-\(text.dropFirst(6).prefix(2))T\(text.dropFirst(9).prefix(2)):\(text.dropFirst(11).prefix(2)):\(text.dropFirst(13).prefix(2))Z"
        return Timestamp.parse(iso)
    }
}
