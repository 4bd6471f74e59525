import RetimeShared

extension EntityID where Entity == Group {
    /// The namespace of groups' name-based ids (a fixed, random UUID of our own).
    static let nameNamespace: [UInt8] = [0x37, 0x16, 0x32, 0xe3, 0xbb, 0x82, 0x4e, 0xe4, 0xae, 0x36, 0x40, 0xfe, 0x11, 0xb7, 0xe2, 0x4b]

    /// The id a group made under `name` takes: the first name-based one
    /// `isFree` accepts (a group renamed since may hold one), else a random
    /// one. Two devices that make `work` before they see each other make
    /// one group, whose targets are both devices' (docs/storage.md).
    public static func made(as name: GroupName, isFree: (GroupID) async throws -> Bool) async rethrows -> GroupID {
        for attempt in 0..<nameCandidates {
            let id = named(name.rawValue, namespace: nameNamespace, attempt: attempt)
            if try await isFree(id) { return id }
        }
        return GroupID()
    }

    /// `made(as:isFree:)` for a caller that knows every id taken.
    public static func made(as name: GroupName, among taken: Set<GroupID>) -> GroupID {
        (0..<nameCandidates).lazy.map { named(name.rawValue, namespace: nameNamespace, attempt: $0) }
            .first { !taken.contains($0) } ?? GroupID()
    }
}
