import Domain

/// A directory of one shield: whatever is asked for, that shield. For tests
/// of use cases, where the configuration does not change.
public struct FixedShieldDirectory: ShieldDirectory {
    public let shield: any Shield

    public init(_ shield: any Shield) {
        self.shield = shield
    }

    public func configured() throws -> any Shield { shield }
    public func shield(identity: String) throws -> any Shield { shield }
}
