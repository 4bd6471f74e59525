/// One change a device made to a replicated collection of records (the
/// groups, the schedules, the settings, ...), stamped with the device's
/// hybrid clock. Changes are per field, so two devices editing different
/// fields of one record both keep their edit (docs/storage.md, "Merge rules").
public struct RecordChange<Value: Hashable & Sendable>: Hashable, Sendable {
    public enum Kind: Hashable, Sendable {
        /// The field takes `value` (nil: the field is removed).
        case set(field: String, value: Value?)
        /// `element` joins the set held in `field`.
        case add(field: String, element: Value)
        /// `element` leaves the set held in `field`.
        case remove(field: String, element: Value)
        /// The record is deleted.
        case delete
    }

    public let at: HybridTimestamp
    /// The record's key (a group's id, a setting's name, ...).
    public let record: String
    public let kind: Kind

    public init(at: HybridTimestamp, record: String, kind: Kind) {
        self.at = at
        self.record = record
        self.kind = kind
    }
}
