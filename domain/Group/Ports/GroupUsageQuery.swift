/// Answers "what uses this group?" for the Group context. The Session context
/// knows the answer (the active session, schedules); the composition root
/// plugs in an adapter over its repositories, so neither context imports the
/// other's types.
public protocol GroupUsageQuery: Sendable {
    /// What uses the group right now; empty when it may be deleted.
    func usages(of group: GroupID) async throws -> [GroupUsage]
}
