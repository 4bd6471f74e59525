import Domain
import Foundation

/// The rules of `GroupTargetsObserver`: told that a group's targets
/// changed, the running session's block holds the group's targets now.
public enum GroupTargetsObserverContract {
    /// A world whose group and running session the factory makes: the
    /// observer, a way to change the group's targets behind its back, and
    /// the targets the session's block holds.
    public struct Subject: Sendable {
        public var observer: any GroupTargetsObserver
        public var group: GroupID
        public var setTargets: @Sendable ([Target]) async throws -> Void
        public var blocked: @Sendable () async throws -> [Target]?

        public init(observer: any GroupTargetsObserver, group: GroupID, setTargets: @escaping @Sendable ([Target]) async throws -> Void,
                    blocked: @escaping @Sendable () async throws -> [Target]?) {
            self.observer = observer
            self.group = group
            self.setTargets = setTargets
            self.blocked = blocked
        }
    }

    public typealias Factory = @Sendable () async throws -> Subject

    public static let checks: [ContractCheck<Factory>] = [
        ContractCheck("after a change is told, the block holds the group's new targets, added or removed") { make in
            let subject = try await make()
            let more = ["a.example.com", "b.example.com", "app:steam"].map { try! Target(parsing: $0) }
            try await subject.setTargets(more)
            try await subject.observer.targetsChanged(of: subject.group)
            try requireEqual(Set(try await subject.blocked() ?? []), Set(more), "blocked after adding")
            try await subject.setTargets([more[1]])
            try await subject.observer.targetsChanged(of: subject.group)
            try requireEqual(try await subject.blocked(), [more[1]], "blocked after removing")
        },
    ]
}
