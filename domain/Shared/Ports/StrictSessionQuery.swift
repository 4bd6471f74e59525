import FoundationEssentials

/// Answers "does a strict session run, and until when?" for rules outside
/// the Session context (the shield setting may not change during one).
public protocol StrictSessionQuery: Sendable {
    func strictUntil() async throws -> Date?
}
