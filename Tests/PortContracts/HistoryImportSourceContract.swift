import Domain
import Foundation

/// The rules every `HistoryImportSource` keeps. The factory gives the
/// source and writes, in a fresh temporary directory, a sample in the
/// source's format holding `valid` good sessions and one malformed entry,
/// returning the path to read.
public enum HistoryImportSourceContract {
    public struct Subject: Sendable {
        public var source: any HistoryImportSource
        /// Writes the sample; returns its path and the line of its malformed entry.
        public var writeSample: @Sendable (_ valid: Int) throws -> (path: String, badLine: Int)
        /// A path next to the sample that does not exist.
        public var missingPath: String

        public init(source: any HistoryImportSource, missingPath: String,
                    writeSample: @escaping @Sendable (Int) throws -> (path: String, badLine: Int)) {
            self.source = source
            self.writeSample = writeSample
            self.missingPath = missingPath
        }
    }

    public typealias Factory = @Sendable () async throws -> Subject

    public static let checks: [ContractCheck<Factory>] = [
        ContractCheck("every good entry becomes an ended session with a group name; the bad one a problem with its line") { make in
            let subject = try await make()
            let (path, badLine) = try subject.writeSample(3)
            let batch = try await subject.source.read(path)
            try requireEqual(batch.records.count, 3, "records")
            try requireEqual(batch.problems.map(\.line), [badLine], "problem lines")
            for record in batch.records {
                let session = record.session
                try require(!session.isActive && session.endedAt != nil, "session \(session.id) has ended")
                try require(session.endedAt! > session.startedAt, "session \(session.id) ends after it starts")
                try require(!record.groupName.isEmpty, "a group name")
            }
            try requireEqual(Set(batch.records.map(\.session.id)).count, 3, "distinct ids")
        },
        ContractCheck("reading the same data twice gives the same sessions, ids included") { make in
            let subject = try await make()
            let (path, _) = try subject.writeSample(5)
            let first = try await subject.source.read(path), second = try await subject.source.read(path)
            try requireEqual(first, second, "two reads")
        },
        ContractCheck("a path that does not exist is ImportError.unreadable") { make in
            let subject = try await make()
            do {
                _ = try await subject.source.read(subject.missingPath)
                try require(false, "reading a missing path succeeded")
            } catch let error as ImportError {
                guard case .unreadable = error else { throw ContractViolation(message: "got \(error)", file: #filePath, line: #line) }
            }
        },
    ]
}
