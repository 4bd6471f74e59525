import Domain
import Foundation

/// The rules every `ImportGroupDirectory` keeps. The factory gives a
/// directory over a Group context that holds exactly `groups`, and a way
/// to read the groups back.
public enum ImportGroupDirectoryContract {
    public struct Subject: Sendable {
        public var directory: any ImportGroupDirectory
        public var groups: @Sendable () async throws -> [Group]

        public init(directory: any ImportGroupDirectory, groups: @escaping @Sendable () async throws -> [Group]) {
            self.directory = directory
            self.groups = groups
        }
    }

    public typealias Factory = @Sendable (_ groups: [Group]) async throws -> Subject

    public static let checks: [ContractCheck<Factory>] = [
        ContractCheck("a known name in any case is that group, not created; an unknown one is created once, with its targets") { make in
            let work = Fixtures.group("Work")
            let subject = try await make([work])
            let targets = [try! Target(parsing: "news.example.org")]
            let answers = try await subject.directory.groups(for: [
                ImportGroupRequest(name: "WORK"), ImportGroupRequest(name: "Reading", targets: targets), ImportGroupRequest(name: "reading"),
            ])
            let ids = answers.map { try? $0.get() }
            try requireEqual(ids[0]?.id, work.id, "the known group")
            try requireEqual(ids[0]?.created, false, "the known group was created")
            try requireEqual(ids[1]?.created, true, "the new group was not created")
            try requireEqual(ids[2]?.id, ids[1]?.id, "the same new name asked twice")
            let stored = try await subject.groups()
            try requireEqual(stored.count, 2, "groups after the import")
            try requireEqual(stored.first { $0.id == ids[1]?.id }?.targets, targets, "the created group's targets")
        },
        ContractCheck("a created group takes its preferred id when free; an invalid name fails in its place") { make in
            let subject = try await make([])
            let preferred = GroupID()
            let answers = try await subject.directory.groups(for: [
                ImportGroupRequest(name: "bad/name"), ImportGroupRequest(name: "Backup", preferredId: preferred),
            ])
            let refused = if case .failure = answers[0] { true } else { false }
            try require(refused, "bad/name was accepted")
            try requireEqual(try? answers[1].get().id, preferred, "the preferred id")
        },
    ]
}
