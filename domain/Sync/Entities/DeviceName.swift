/// The name a person gives a device (`retime device name laptop`), shown by
/// `sync status` and beside sessions started there; the id stays the key.
public enum DeviceName {
    /// The most characters a name may have.
    public static let maximumLength = 64

    /// `text` as a name: 1-64 printable characters, no control characters
    /// (a name is printed in tables and one-line outputs). Leading and
    /// trailing spaces are not part of it.
    public static func validate(_ text: String) throws(SyncError) -> String {
        let name = String(text.drop { $0 == " " }.reversed().drop { $0 == " " }.reversed())
        guard !name.isEmpty else { throw .invalidDeviceName(text, reason: "it is empty") }
        guard name.count <= maximumLength else {
            throw .invalidDeviceName(text, reason: "it has \(name.count) characters; at most \(maximumLength)")
        }
        guard !name.unicodeScalars.contains(where: Self.isUnprintable) else {
            throw .invalidDeviceName(text, reason: "it holds a control character")
        }
        return name
    }

    private static func isUnprintable(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.properties.generalCategory {
        case .control, .format, .lineSeparator, .paragraphSeparator, .surrogate, .unassigned, .privateUse: true
        default: false
        }
    }
}
