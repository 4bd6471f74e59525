/// Whether the configured shield may enforce blocks, as Screen Time's
/// authorization status says it: asked once by `auth request`, then kept.
public enum ShieldAuthorization: String, Sendable, Codable, CaseIterable {
    case notDetermined
    case denied
    case approved
}
