@testable import Adapters
import Domain
import Foundation
import JSONDocument
import PortContracts
import Testing

/// The session slot's value is coded by hand for the common shape
/// (`SessionSlotJSON`); it must be exactly the JSON `Codable` gives and
/// reads, or leave the value to `Codable`: never a third answer.
@Suite("The session slot's JSON, by hand, as Codable codes it")
struct SessionSlotJSONTests {
    static let reading = BootTimeReading(bootID: "7e1c-boot", seconds: 5_000.25, awakeSeconds: 4_000)

    /// Sessions of every shape the slot holds, each optional set and not.
    static func sessions() throws -> [Session] {
        let group = GroupID()
        let plain = Session(groupId: group, startedAt: Fixtures.instant(0), plannedEnd: nil)
        let full = Session(groupId: group, startedAt: Fixtures.instant(10.5), plannedEnd: Fixtures.instant(1_510.75), strict: true,
                           tags: ["deep work", "é \"quoted\"\n"], note: "chapter 3 \\ 日本", origin: .schedule("mornings"),
                           bootDeadline: BootTimeReading(bootID: "b", seconds: 12_345.678_9), shield: "system",
                           groupName: "work", device: "0a1b2c3d-0000-4000-8000-000000000001", startReading: reading)
        let paused = try full.pausing(at: Fixtures.instant(60))
        let resumed = try paused.resuming(at: Fixtures.instant(90.001))
        let whole = Session(groupId: group, startedAt: Fixtures.instant(-3_600), plannedEnd: Fixtures.instant(0), origin: .imported("watson"),
                            startReading: BootTimeReading(bootID: "w", seconds: 100))
        let away = Session(id: SessionID(), groupId: group, startedAt: Fixtures.instant(0), plannedEnd: nil, endedAt: nil, outcome: .active,
                           strict: false, breaks: [], tags: [], note: nil, origin: .manual,
                           away: [AwayStretch(reason: .idle, start: Fixtures.instant(30), end: Fixtures.instant(40))])
        return [plain, full, paused, resumed, resumed.ending(at: Fixtures.instant(1_510.75), outcome: .completed),
                plain.ending(at: Fixtures.instant(5), outcome: .stopped), whole, Fixtures.session(strict: true), Fixtures.endedSession(startingAt: 7),
                away]
    }

    @Test("every session encodes to the JSON Codable wrote, and reads back as Codable reads it")
    func sameAsCodable() throws {
        for session in try Self.sessions() {
            let codable = try JSONValueCoding.encode(session)
            let json = try DecodedSessions.json(session, key: "current")
            #expect(json == codable, "\(session)")
            #expect(try DecodedSessions.session(json, key: "current") == session)
            #expect(try JSONValueCoding.decode(Session.self, from: json) == session)
            if let hand = SessionSlotJSON.decode(codable) { #expect(hand == session) }
        }
        // The common shape is taken by hand (else this proved nothing).
        for session in try Self.sessions().prefix(7) {
            let codable = try JSONValueCoding.encode(session)
            #expect(SessionSlotJSON.encode(session) != nil, "\(session)")
            #expect(SessionSlotJSON.decode(codable) != nil, "\(session)")
        }
    }

    /// Values written by older or newer retimes, or by hand: whatever the
    /// hand decoder takes, Codable takes the same; whatever Codable
    /// refuses, the hand decoder leaves to it (and so the same error).
    @Test("odd values: nulls, whole numbers, unknown members, wrong types, missing members")
    func oddValues() throws {
        let session = try #require(try Self.sessions().dropFirst(2).first)
        guard case .object(let members) = try JSONValueCoding.encode(session) else { Issue.record("no object"); return }
        var variants: [[String: JSONValue]] = []
        for key in members.keys {
            var without = members; without[key] = nil; variants.append(without)
            var null = members; null[key] = .null; variants.append(null)
            var number = members; number[key] = .int(3); variants.append(number)
            var text = members; text[key] = .string("x"); variants.append(text)
        }
        var unknown = members; unknown["cycle"] = .null; variants.append(unknown)
        var newer = members; newer["fromTheFuture"] = .bool(true); variants.append(newer)
        var wholeSeconds = members
        wholeSeconds["startReading"] = .object(["bootID": .string("b"), "seconds": .int(12), "awakeSeconds": .null])
        variants.append(wholeSeconds)
        var upper = members; upper["id"] = .string(session.id.description.uppercased()); variants.append(upper)
        var badBreak = members; badBreak["breaks"] = .array([.object(["start": .string("2026-11-25T09:00:00Z"), "end": .int(1)])]); variants.append(badBreak)
        for variant in variants {
            let value = JSONValue.object(variant)
            let codable = Result { try JSONValueCoding.decode(Session.self, from: value, key: "current") }
            if let hand = SessionSlotJSON.decode(value) {
                #expect(try codable.get() == hand, "\(variant)")
            }
            switch (codable, Result { try DecodedSessions.session(value, key: "current") }) {
            case (.success(let a), .success(let b)): #expect(a == b)
            case (.failure(let a), .failure(let b)): #expect("\(a)" == "\(b)")
            default: Issue.record("Codable and the slot disagree on \(variant)")
            }
        }
    }
}
