@testable import Adapters
import Domain
import Foundation
import JSONDocument
import Testing

/// A stored schedule of the common shape is read by hand (`ScheduleJSON`);
/// it must be exactly the schedule `Codable` reads, or leave the value to
/// `Codable`: never a third answer.
@Suite("A stored schedule, read by hand, as Codable reads it")
struct ScheduleJSONTests {
    /// Schedules of every shape the suite holds, each optional set and not.
    static func schedules() throws -> [Schedule] {
        let group = GroupID()
        let plain = Schedule(name: "mornings", groupId: group, from: try #require(TimeOfDay(parsing: "09:00")),
                             to: try #require(TimeOfDay(parsing: "12:30:15")), weekdays: Weekday.weekdays)
        var odd = Schedule(name: "é \"quoted\"\n 日本", groupId: group, from: try #require(TimeOfDay(parsing: "23:00")),
                           to: try #require(TimeOfDay(parsing: "01:00")), weekdays: [.sun], warnSeconds: 90.5, strict: true, enabled: false)
        odd.allowance = 600
        var fractional = plain
        fractional.allowance = 0.25
        let pending = Schedule(name: "strict", groupId: group, from: plain.from, to: plain.to, weekdays: Set(Weekday.allCases), strict: true,
                               pending: PendingScheduleChange(kind: .remove, effectiveAt: Date(timeIntervalSince1970: 1_795_000_000.5)))
        let cycled = Schedule(name: "cycles", groupId: group, from: plain.from, to: plain.to, weekdays: Weekday.weekends,
                              cycle: Cycle.fixed(work: 1_500, breakLength: 300))
        return [plain, odd, fractional, pending, cycled]
    }

    @Test("every schedule reads back as Codable reads it; the common shape is read by hand")
    func sameAsCodable() throws {
        let schedules = try Self.schedules()
        for schedule in schedules {
            let json = try JSONValueCoding.encode(schedule)
            #expect(try JSONValueCoding.decode(Schedule.self, from: json) == schedule)
            if let hand = ScheduleJSON.decode(json) { #expect(hand == schedule, "\(schedule)") }
        }
        // The common shape is taken by hand (else this proved nothing).
        for schedule in schedules.prefix(3) {
            #expect(ScheduleJSON.decode(try JSONValueCoding.encode(schedule)) != nil, "\(schedule)")
        }
    }

    /// Values written by older or newer retimes, or by hand: whatever the
    /// hand reader takes, Codable takes the same; whatever else, it leaves.
    @Test("odd values: nulls, whole and fractional numbers, unknown members, wrong types, missing members, repeated days")
    func oddValues() throws {
        let schedule = try #require(try Self.schedules().dropFirst().first)
        guard case .object(let members) = try JSONValueCoding.encode(schedule) else { Issue.record("no object"); return }
        var variants: [[String: JSONValue]] = []
        for key in members.keys + ["pending", "cycle"] {
            var without = members; without[key] = nil; variants.append(without)
            var null = members; null[key] = .null; variants.append(null)
            var number = members; number[key] = .int(3); variants.append(number)
            var fraction = members; fraction[key] = .double(2.5); variants.append(fraction)
            var text = members; text[key] = .string("x"); variants.append(text)
            var flag = members; flag[key] = .bool(true); variants.append(flag)
        }
        var newer = members; newer["fromTheFuture"] = .bool(true); variants.append(newer)
        var upper = members; upper["id"] = .string(schedule.id.description.uppercased()); variants.append(upper)
        var twice = members; twice["weekdays"] = .array([.string("sun"), .string("sun"), .string("mon")]); variants.append(twice)
        var badDay = members; badDay["weekdays"] = .array([.string("sunday")]); variants.append(badDay)
        var noDays = members; noDays["weekdays"] = .array([]); variants.append(noDays)
        var badTime = members; badTime["from"] = .string("24:00"); variants.append(badTime)
        var short = members; short["to"] = .string("7:00"); variants.append(short)
        var hugeAllowance = members; hugeAllowance["allowance"] = .int(Int64.max); variants.append(hugeAllowance)
        for variant in variants {
            let value = JSONValue.object(variant)
            let codable = Result { try JSONValueCoding.decode(Schedule.self, from: value, key: "schedules/x") }
            guard let hand = ScheduleJSON.decode(value) else { continue }
            #expect(try codable.get() == hand, "\(variant)")
        }
    }
}
