extension StringProtocol {
    /// Whether the text holds a control character (C0, DEL or C1): names,
    /// tags and app names may not, since they end up in terminals and files.
    public var containsControlCharacter: Bool {
        unicodeScalars.contains { $0.properties.generalCategory == .control }
    }
}
