/// Asks the configured shield whether it can enforce a block here (the
/// hosts shield: can it write its file?), without changing anything.
public protocol ShieldAuthorizationProbe: Sendable {
    func authorization() async -> ShieldAuthorization
}
