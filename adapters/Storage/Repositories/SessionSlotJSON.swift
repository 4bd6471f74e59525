import Domain
import FoundationEssentials
import JSONDocument

/// The session slot's value for a plain session, coded by hand: exactly
/// the JSON the `Codable` encoding gives (and reads), without `Codable`'s
/// containers, whose type metadata every process set up afresh (a third of
/// a `stop`'s own work went to encoding and decoding the one session).
///
/// Only the common shape is done here: a session with an unlock rule or
/// request, a cycle and its waits, an allowance, away stretches, targets
/// held (a strict session's), or a JSON
/// value with any member or type this does not expect, is left to
/// `Codable` (nil), which codes it, or says what is wrong with it, as
/// before. `SessionSlotJSONTests` holds the two to the same JSON.
enum SessionSlotJSON {
    /// `session` as `Codable` encodes it; nil when it is not of the common shape.
    static func encode(_ session: Session) -> JSONValue? {
        guard session.unlockRequest == nil, session.cycle == nil, session.allowance == nil, session.dailyAllowance == nil,
              session.away == nil, session.unlock == nil, session.waits == nil, session.heldTargets == nil else { return nil }
        var members: [String: JSONValue] = [
            "id": .string(session.id.description), "groupId": .string(session.groupId.description),
            "startedAt": .string(Timestamp.format(session.startedAt)), "outcome": .string(session.outcome.rawValue),
            "strict": .bool(session.strict), "tags": .array(session.tags.map { .string($0) }),
            "origin": .string(session.origin.description),
        ]
        var breaks: [JSONValue] = []
        breaks.reserveCapacity(session.breaks.count)
        for one in session.breaks {
            var pause: [String: JSONValue] = ["start": .string(Timestamp.format(one.start))]
            if let end = one.end { pause["end"] = .string(Timestamp.format(end)) }
            breaks.append(.object(pause))
        }
        members["breaks"] = .array(breaks)
        if let plannedEnd = session.plannedEnd { members["plannedEnd"] = .string(Timestamp.format(plannedEnd)) }
        if let endedAt = session.endedAt { members["endedAt"] = .string(Timestamp.format(endedAt)) }
        if let note = session.note { members["note"] = .string(note) }
        if let shield = session.shield { members["shield"] = .string(shield) }
        if let groupName = session.groupName { members["groupName"] = .string(groupName) }
        if let device = session.device { members["device"] = .string(device) }
        for (name, reading) in [("bootDeadline", session.bootDeadline), ("startReading", session.startReading)] {
            guard let reading else { continue }
            guard let json = encode(reading) else { return nil }
            members[name] = json
        }
        return .object(members)
    }

    /// The session `value` holds, as `Codable` decodes it; nil when it is
    /// not of the common shape (`Codable` then decodes it, or says why not).
    static func decode(_ value: JSONValue) -> Session? {
        guard case .object(let members) = value, members.count <= known.count,
              members.keys.allSatisfy(known.contains) else { return nil }
        guard case .string(let idText)? = members["id"], let id = SessionID(idText),
              case .string(let groupText)? = members["groupId"], let groupId = GroupID(groupText),
              let startedAt = date(members["startedAt"]),
              case .string(let outcomeText)? = members["outcome"], let outcome = SessionOutcome(rawValue: outcomeText),
              case .bool(let strict)? = members["strict"],
              case .array(let tagValues)? = members["tags"],
              case .string(let originText)? = members["origin"], let origin = SessionOrigin(originText),
              case .array(let breakValues)? = members["breaks"] else { return nil }
        var tags: [String] = []
        tags.reserveCapacity(tagValues.count)
        for tag in tagValues {
            guard case .string(let text) = tag else { return nil }
            tags.append(text)
        }
        var breaks: [Break] = []
        breaks.reserveCapacity(breakValues.count)
        for item in breakValues {
            guard case .object(let pause) = item, pause.keys.allSatisfy({ $0 == "start" || $0 == "end" }),
                  let start = date(pause["start"]), let end = optionalDate(pause["end"]) else { return nil }
            breaks.append(Break(start: start, end: end))
        }
        guard let plannedEnd = optionalDate(members["plannedEnd"]), let endedAt = optionalDate(members["endedAt"]),
              let note = optionalString(members["note"]), let shield = optionalString(members["shield"]),
              let groupName = optionalString(members["groupName"]), let device = optionalString(members["device"]),
              let bootDeadline = optionalReading(members["bootDeadline"]),
              let startReading = optionalReading(members["startReading"]) else { return nil }
        return Session(id: id, groupId: groupId, startedAt: startedAt, plannedEnd: plannedEnd, endedAt: endedAt, outcome: outcome,
                       strict: strict, breaks: breaks, tags: tags, note: note, origin: origin, bootDeadline: bootDeadline,
                       shield: shield, groupName: groupName, device: device, startReading: startReading)
    }

    /// The members of the common shape.
    private static let known: Set<String> = ["id", "groupId", "startedAt", "plannedEnd", "endedAt", "outcome", "strict", "breaks", "tags",
                                             "note", "origin", "bootDeadline", "shield", "groupName", "device", "startReading"]

    private static func encode(_ reading: BootTimeReading) -> JSONValue? {
        guard let seconds = number(reading.seconds) else { return nil }
        var members: [String: JSONValue] = ["bootID": .string(reading.bootID), "seconds": seconds]
        if let awake = reading.awakeSeconds {
            guard let awake = number(awake) else { return nil }
            members["awakeSeconds"] = awake
        }
        return .object(members)
    }

    /// A double as the store's encoder writes it: whole ones as integers;
    /// nil for one it refuses (not finite).
    private static func number(_ value: Double) -> JSONValue? {
        guard value.isFinite else { return nil }
        return value == value.rounded() && abs(value) < 9.2e18 ? .int(Int64(value)) : .double(value)
    }

    // Decoding: each optional is `.some(nil)` when absent or null (as
    // `decodeIfPresent` takes both), nil when it is of another type.

    private static func date(_ value: JSONValue?) -> Date? {
        guard case .string(let text)? = value else { return nil }
        return Timestamp.parse(text)
    }

    private static func optionalDate(_ value: JSONValue?) -> Date?? {
        guard let value, value != .null else { return .some(nil) }
        return date(value).map { .some($0) }
    }

    private static func optionalString(_ value: JSONValue?) -> String?? {
        guard let value, value != .null else { return .some(nil) }
        guard case .string(let text) = value else { return nil }
        return .some(text)
    }

    private static func optionalReading(_ value: JSONValue?) -> BootTimeReading?? {
        guard let value, value != .null else { return .some(nil) }
        guard case .object(let members) = value, members.keys.allSatisfy({ $0 == "bootID" || $0 == "seconds" || $0 == "awakeSeconds" }),
              case .string(let bootID)? = members["bootID"], let seconds = double(members["seconds"]) else { return nil }
        var awake: Double?
        if let value = members["awakeSeconds"], value != .null {
            guard let number = double(value) else { return nil }
            awake = number
        }
        return .some(BootTimeReading(bootID: bootID, seconds: seconds, awakeSeconds: awake))
    }

    /// A number as the store's decoder reads a `Double`.
    private static func double(_ value: JSONValue?) -> Double? {
        switch value {
        case .double(let number)?: number
        case .int(let number)?: Double(number)
        default: nil
        }
    }
}
