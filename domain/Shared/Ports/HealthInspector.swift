/// A part of the installation that checks itself for `doctor`, and repairs
/// what it safely can when asked (the data directory's files; the
/// composition's own wiring). Never throws: what it cannot check is a
/// finding like any other.
///
/// The contract every adapter keeps is `HealthInspectorContract`.
public protocol HealthInspector: Sendable {
    func inspect(repairing: Bool) async -> [HealthCheck]
}
