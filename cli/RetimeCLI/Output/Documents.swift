#if canImport(Glibc)
import Domain
import FoundationEssentials
import Glibc
import JSONDocument
#endif

/// The JSON shapes of the CLI contract (`../shared/spec/cli.md`), built from
/// domain values. Every document carries `"schema": "retime/1"`.
enum Documents {
    static let schema = "retime/1"

    /// `{"schema":"retime/1", key: payload}`.
    static func document(_ members: [String: JSONValue]) -> JSONValue {
        .object(members.merging(["schema": .string(schema)]) { _, schema in schema })
    }

    static let ok = document(["ok": .bool(true)])

    /// ISO-8601 with the local offset, to the millisecond.
    static func time(_ date: Date?) -> JSONValue {
        guard let date else { return .null }
        return .string(Timestamp.format(date, offset: LocalOffset.seconds(at: date), fractionDigits: 3))
    }

    static func group(_ group: Group) -> JSONValue {
        .object([
            "id": .string(group.id.description),
            "name": .string(group.name.rawValue),
            "targets": .array(group.targets.map { .string($0.description) }),
            "allowanceSeconds": group.allowance.map { .int(Int64($0.rounded(.down))) } ?? .null,
            "createdAt": time(group.createdAt),
            "updatedAt": time(group.updatedAt),
        ])
    }

    /// A session; `groupName` is resolved by the caller (nil if deleted),
    /// and so is `deviceName`, the name of the device it was started on.
    static func session(_ session: Session, groupName: String?, at now: Date, deviceName: String? = nil) -> JSONValue {
        .object([
            "id": .string(session.id.description),
            "group": groupName.map(JSONValue.string) ?? .null,
            "groupId": .string(session.groupId.description),
            "startedAt": time(session.startedAt),
            "plannedEnd": time(session.plannedEnd(at: now)),
            "endedAt": time(session.endedAt),
            "outcome": .string(session.outcome.rawValue),
            "strict": .bool(session.strict),
            "paused": .bool(session.isPaused),
            "focusedSeconds": .double(session.focused(at: now)),
            "breaks": .array(session.breaks.map { .object(["start": time($0.start), "end": time($0.end)]) }),
            "tags": .array(session.tags.map(JSONValue.string)),
            "note": session.note.map(JSONValue.string) ?? .null,
            "origin": .string(session.origin.description),
            "device": session.device.map { .object(["id": .string($0), "name": deviceName.map(JSONValue.string) ?? .null]) } ?? .null,
            "cycle": cycle(of: session, at: now),
            "awaySeconds": .double(session.awayTime(at: now)),
            "away": .array(session.awayStretches.map { stretch in
                .object(["reason": .string(stretch.reason.rawValue), "start": time(stretch.start), "end": time(stretch.end),
                         "kept": .bool(stretch.kept)])
            }),
        ])
    }

    /// A session's `cycle` (cli.md, "Focus cycles"): its lengths in
    /// seconds and where it stands; null without one. `phase` and `round`
    /// are null once the session ended.
    static func cycle(of session: Session, at now: Date) -> JSONValue {
        guard let cycle = session.cycle else { return .null }
        let phase = session.cyclePhase
        func seconds(_ value: TimeInterval?) -> JSONValue { value.map(JSONValue.double) ?? .null }
        return .object([
            "work": seconds(cycle.work), "break": seconds(cycle.breakLength), "longBreak": seconds(cycle.longBreak),
            "breakRatio": seconds(cycle.breakRatio),
            "waitForActivity": .bool(cycle.waitsForUser),
            // How long its work phases waited for their user, the one going on included.
            "waitedSeconds": .double(session.cycleWaits.reduce(0) { $0 + $1.length(at: session.endedAt ?? now) }),
            "rounds": cycle.rounds.map { .int(Int64($0)) } ?? .null,
            "round": phase.map { .int(Int64($0.round)) } ?? .null,
            "phase": phase.map { .string($0.kind.rawValue) } ?? .null,
            "phaseEndsAt": time(phase?.end),
        ])
    }

    /// The active session as `status` shows it: with elapsed and remaining time.
    static func status(_ status: SessionStatus, groupName: String?) -> JSONValue {
        guard case .object(var members) = session(status.session, groupName: groupName, at: status.at, deviceName: status.deviceName)
        else { return .null }
        members["elapsedSeconds"] = .double(status.elapsed)
        members["remainingSeconds"] = status.remaining.map(JSONValue.double) ?? .null
        if status.blockReleased { members["blockReleased"] = .bool(true) }
        members["asleepSeconds"] = .double(status.asleep)
        // What `status` tells on return, and `keep-away` would keep.
        members["lastAway"] = status.lastAway.map { stretch in
            .object(["reason": .string(stretch.reason.rawValue), "start": time(stretch.start), "end": time(stretch.end),
                     "seconds": .double((stretch.end ?? status.at).timeIntervalSince(stretch.start))])
        } ?? .null
        // A countdown to end the strict session early (`unlock delay:`).
        if let request = status.session.unlockRequest, let ends = status.unlockEndsAt {
            members["unlock"] = .object([
                "action": .string(request.action.rawValue), "requestedAt": time(request.requestedAt), "endsAt": time(ends),
                "remainingSeconds": .double(max(0, ends.timeIntervalSince(status.now))),
            ])
        }
        return .object(members)
    }
}
