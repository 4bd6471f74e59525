import RetimeShared

extension EntityID where Entity == Schedule {
    /// The namespace of schedules' name-based ids (a fixed, random UUID of our own).
    static let nameNamespace: [UInt8] = [0xda, 0xb5, 0x30, 0xb1, 0x77, 0x79, 0x4d, 0x79, 0x95, 0xcf, 0x43, 0xc1, 0xa5, 0xf4, 0x06, 0x27]

    /// The id a schedule made under `name` takes: the first name-based one
    /// not in `taken` (a schedule renamed since may hold one), else a random
    /// one. Two devices that add `mornings` before they see each other add
    /// one schedule, whose fields are the later one's (docs/storage.md).
    public static func made(as name: String, among taken: Set<ScheduleID>) -> ScheduleID {
        (0..<nameCandidates).lazy.map { named(name, namespace: nameNamespace, attempt: $0) }
            .first { !taken.contains($0) } ?? ScheduleID()
    }
}
