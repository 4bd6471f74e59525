import Foundation

/// A small iCalendar reader for the tests: checks the line rules of RFC 5545
/// (CRLF, at most 75 octets, folding) while unfolding, then the nesting of
/// components, and unescapes TEXT values.
struct ICalendarCheck {
    struct Component {
        var name: String
        var properties: [String: String] = [:]
        var parameters: [String: String] = [:]
        subscript(_ key: String) -> String? { properties[key] }
    }

    struct Problem: Error, CustomStringConvertible { let description: String }

    var all: [Component] = []
    var foldedLines = 0

    func components(_ name: String) -> [Component] { all.filter { $0.name == name } }

    static func parse(_ text: String) throws -> ICalendarCheck {
        var check = ICalendarCheck()
        guard text.hasSuffix("\r\n") else { throw Problem(description: "does not end with CRLF") }
        // "\r\n" is one Character: drop the final line end by its bytes.
        let physical = String(decoding: text.utf8.dropLast(2), as: UTF8.self).components(separatedBy: "\r\n")
        var logical: [String] = []
        for line in physical {
            guard line.utf8.count <= 75 else { throw Problem(description: "line over 75 octets: \(line)") }
            guard !line.contains("\n"), !line.contains("\r") else { throw Problem(description: "bare line end in \(line)") }
            if line.hasPrefix(" ") {
                guard !logical.isEmpty else { throw Problem(description: "continuation first") }
                logical[logical.count - 1] += line.dropFirst()
                check.foldedLines += 1
            } else {
                logical.append(line)
            }
        }
        var stack: [Component] = []
        for line in logical {
            guard let colon = line.firstIndex(of: ":") else { throw Problem(description: "no colon: \(line)") }
            let head = line[..<colon], value = String(line[line.index(after: colon)...])
            let nameAndParameters = head.split(separator: ";", maxSplits: 1)
            let name = String(nameAndParameters[0])
            switch name {
            case "BEGIN": stack.append(Component(name: value))
            case "END":
                guard let last = stack.popLast(), last.name == value else { throw Problem(description: "END:\(value) without BEGIN") }
                check.all.append(last)
            default:
                guard !stack.isEmpty else { throw Problem(description: "property outside a component: \(line)") }
                stack[stack.count - 1].properties[name] = unescape(value)
                if nameAndParameters.count == 2 { stack[stack.count - 1].parameters[name] = String(nameAndParameters[1]) }
            }
        }
        guard stack.isEmpty else { throw Problem(description: "unclosed \(stack.map(\.name))") }
        guard let calendar = check.components("VCALENDAR").first, calendar["VERSION"] == "2.0", calendar["PRODID"] != nil else {
            throw Problem(description: "no VCALENDAR with VERSION:2.0 and PRODID")
        }
        let zones = Set(check.components("VTIMEZONE").compactMap { $0["TZID"] })
        for event in check.components("VEVENT") {
            for required in ["UID", "DTSTAMP", "DTSTART"] where event[required] == nil {
                throw Problem(description: "VEVENT without \(required)")
            }
            for (_, parameter) in event.parameters where parameter.hasPrefix("TZID=") {
                guard zones.contains(String(parameter.dropFirst(5))) else { throw Problem(description: "no VTIMEZONE for \(parameter)") }
            }
        }
        return check
    }

    static func unescape(_ value: String) -> String {
        var result = "", escaped = false
        for character in value {
            if escaped {
                result.append(character == "n" || character == "N" ? "\n" : character)
                escaped = false
            } else if character == "\\" {
                escaped = true
            } else {
                result.append(character)
            }
        }
        return result
    }
}
