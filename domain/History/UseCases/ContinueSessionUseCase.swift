import FoundationEssentials
import RetimeSession
import RetimeShared

/// `continue`: a new session on an ended one's group, tags and note; as
/// long as it was planned to last, unless told otherwise.
public struct ContinueSessionUseCase: Sendable {
    private let history: any SessionHistory
    private let groups: any SessionGroupLookup
    private let start: StartSessionUseCase

    public init(history: any SessionHistory, groups: any SessionGroupLookup, start: StartSessionUseCase) {
        self.history = history
        self.groups = groups
        self.start = start
    }

    public func execute(_ reference: SessionReference, length: SessionLength?) async throws -> (previous: Session, started: SessionReceipt) {
        let previous = try await FindEndedSessionUseCase(history: history).execute(reference)
        guard let group = try await groups.blockList(id: previous.groupId) else {
            throw SessionError.groupNotFound(name: previous.groupName ?? "of session \(previous.id.description.prefix(8))")
        }
        let planned = previous.plannedEnd.map { SessionLength.duration($0.timeIntervalSince(previous.startedAt)) } ?? .openEnded
        let plan = SessionPlan(groupName: group.name, groupId: group.groupId, length: length ?? planned, tags: previous.tags,
                               note: previous.note)
        return (previous, try await start.execute(plan))
    }
}

extension ContinueSessionUseCase: ReconcilesSession {}
