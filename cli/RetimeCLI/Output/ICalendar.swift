import Domain
import FoundationEssentials
#if canImport(Glibc)
import Glibc
#endif

/// History and schedules as an iCalendar file (RFC 5545) that calendar apps
/// import: one VEVENT per session (UTC times), one weekly-recurring VEVENT
/// per enabled schedule (local times with a TZID and its VTIMEZONE), CRLF
/// line ends, text escaped, lines folded at 75 octets.
enum ICalendar {
    static func document(sessions: [Session], schedules: [Schedule], groupNames: [GroupID: String],
                         timeZone: TimeZoneRules, now: Date, version: String) -> String {
        var lines = ["BEGIN:VCALENDAR", "VERSION:2.0", "PRODID:-//retime//retime \(version)//EN", "CALSCALE:GREGORIAN", "METHOD:PUBLISH"]
        let recurring = schedules.filter { $0.enabled && !$0.weekdays.isEmpty }
        if !recurring.isEmpty { lines += VTimeZone.lines(timeZone, around: now) }
        for session in sessions {
            guard let end = session.endedAt else { continue }
            let group = session.groupName ?? groupNames[session.groupId] ?? "a deleted group"
            var description = "\(session.outcome.rawValue), focused \(DurationValue.format(session.focused(at: end)))"
            if !session.tags.isEmpty { description += "; tags: " + session.tags.joined(separator: ", ") }
            if let note = session.note { description += "\n" + note }
            lines += ["BEGIN:VEVENT", "UID:\(session.id)@retime", "DTSTAMP:\(utc(now))", "DTSTART:\(utc(session.startedAt))",
                      "DTEND:\(utc(max(end, session.startedAt.addingTimeInterval(1))))", "SUMMARY:" + text("Focus: \(group)"),
                      "DESCRIPTION:" + text(description)]
            if !session.tags.isEmpty { lines.append("CATEGORIES:" + session.tags.map(text).joined(separator: ",")) }
            lines += ["TRANSP:OPAQUE", "END:VEVENT"]
        }
        let days = LocalDays(timeZone: timeZone)
        let today = days.day(of: now)
        for schedule in recurring {
            // The first occurrence from today on is DTSTART, as RFC 5545 wants it to be one.
            guard let day = (today..<today + 7).first(where: { schedule.weekdays.contains(Weekday(daysSinceEpoch: $0)) }) else { continue }
            let endDay = schedule.crossesMidnight ? day + 1 : day
            let byDay = Weekday.allCases.filter(schedule.weekdays.contains).map { String($0.rawValue.prefix(2)).uppercased() }
            let group = groupNames[schedule.groupId] ?? "a deleted group"
            lines += ["BEGIN:VEVENT", "UID:\(schedule.id)@retime", "DTSTAMP:\(utc(now))",
                      "DTSTART;TZID=\(tzid(timeZone)):\(local(day, schedule.from))",
                      "DTEND;TZID=\(tzid(timeZone)):\(local(endDay, schedule.to))",
                      "RRULE:FREQ=WEEKLY;BYDAY=\(byDay.joined(separator: ","))",
                      "SUMMARY:" + text("Focus: \(group) (schedule \(schedule.name))"),
                      "DESCRIPTION:" + text(schedule.strict ? "strict: cannot be ended early" : "a retime schedule"),
                      "TRANSP:OPAQUE", "END:VEVENT"]
        }
        lines.append("END:VCALENDAR")
        return lines.map(fold).joined(separator: "\r\n") + "\r\n"
    }

    /// `20261122T080000Z`.
    static func utc(_ date: Date) -> String {
        basic(Timestamp.format(date, fractionDigits: 0).dropLast()) + "Z"
    }

    /// `20261123T090000`: local day `day` at `time`, floating (the TZID gives the zone).
    static func local(_ day: Int64, _ time: TimeOfDay) -> String {
        let date = LocalDays.label(day).replacingAll("-", with: "")
        func two(_ value: Int) -> String { value < 10 ? "0\(value)" : "\(value)" }
        return "\(date)T\(two(time.hour))\(two(time.minute))\(two(time.second))"
    }

    /// `2026-11-22T08:00:00` to `20261122T080000`.
    static func basic<S: StringProtocol>(_ iso: S) -> String {
        String(iso.filter { $0 != "-" && $0 != ":" })
    }

    static func tzid(_ timeZone: TimeZoneRules) -> String { timeZone.identifier }

    /// TEXT escaping (RFC 5545, 3.3.11).
    static func text(_ value: String) -> String {
        var escaped = ""
        for character in value {
            switch character {
            case "\\": escaped += "\\\\"
            case ";": escaped += "\\;"
            case ",": escaped += "\\,"
            case "\n", "\r\n": escaped += "\\n"
            case "\r": continue
            default: escaped.append(character)
            }
        }
        return escaped
    }

    /// Folds a content line at 75 octets, continuation lines starting with a
    /// space, never inside a UTF-8 sequence (RFC 5545, 3.1).
    static func fold(_ line: String) -> String {
        let bytes = Array(line.utf8)
        guard bytes.count > 75 else { return line }
        var pieces: [String] = []
        var start = 0, limit = 75
        while start < bytes.count {
            var end = min(start + limit, bytes.count)
            while end < bytes.count, bytes[end] & 0xC0 == 0x80 { end -= 1 }   // not inside a character
            pieces.append(String(decoding: bytes[start..<end], as: UTF8.self))
            start = end
            limit = 74   // the leading space takes one octet
        }
        return pieces.joined(separator: "\r\n ")
    }
}

/// The VTIMEZONE of a TZID: its transitions from a year before `now` to ten
/// years after, each as its own STANDARD or DAYLIGHT with the offsets on
/// either side (no RRULEs to get wrong); a zone without transitions is one
/// STANDARD with its offset.
enum VTimeZone {
    static func lines(_ timeZone: TimeZoneRules, around now: Date) -> [String] {
        var lines = ["BEGIN:VTIMEZONE", "TZID:\(ICalendar.tzid(timeZone))"]
        let limit = now.addingTimeInterval(10 * 366 * 86_400)
        var cursor = now.addingTimeInterval(-366 * 86_400)
        var transitions: [Date] = []
        while let next = timeZone.nextTransition(after: cursor), next < limit, transitions.count < 100 {
            transitions.append(next)
            cursor = next
        }
        if transitions.isEmpty {
            let offset = offsetText(timeZone.offset(at: now))
            lines += ["BEGIN:STANDARD", "DTSTART:19700101T000000", "TZOFFSETFROM:\(offset)", "TZOFFSETTO:\(offset)", "END:STANDARD"]
        }
        for transition in transitions {
            let before = timeZone.offset(at: transition.addingTimeInterval(-1)), after = timeZone.offset(at: transition)
            let kind = timeZone.isDaylightSaving(at: transition) ? "DAYLIGHT" : "STANDARD"
            let localStart = ICalendar.basic(Timestamp.format(transition, offset: before, fractionDigits: 0).prefix(19))
            lines += ["BEGIN:\(kind)", "DTSTART:\(localStart)", "TZOFFSETFROM:\(offsetText(before))",
                      "TZOFFSETTO:\(offsetText(after))", "END:\(kind)"]
        }
        lines.append("END:VTIMEZONE")
        return lines
    }

    /// `+0100`, `-0430`, `+1030`.
    static func offsetText(_ seconds: Int) -> String {
        let sign = seconds < 0 ? "-" : "+", minutes = abs(seconds) / 60
        func two(_ value: Int) -> String { value < 10 ? "0\(value)" : "\(value)" }
        return "\(sign)\(two(minutes / 60))\(two(minutes % 60))"
    }
}
