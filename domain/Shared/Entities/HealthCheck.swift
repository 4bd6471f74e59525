/// One finding of `doctor`: what was checked, how it stands, and why.
public struct HealthCheck: Sendable, Equatable {
    public enum Status: String, Sendable {
        case ok, warning, error, repaired
    }

    public var name: String
    public var status: Status
    public var detail: String

    public init(name: String, status: Status, detail: String) {
        self.name = name
        self.status = status
        self.detail = detail
    }
}
