@testable import Adapters
import Domain
import Foundation
import JSONDocument
import PortContracts
import Testing

/// `events.jsonl` lines are built by hand (`TrackedEventLine`): every line
/// must be, byte for byte, what the `Codable` encoding wrote before, so
/// readers of the file (hooks, insight, older retimes) see no change.
@Suite("Tracked events' lines as Codable wrote them")
struct TrackedEventLineTests {
    static let events: [TrackedEvent] = [
        TrackedEvent(name: "session-ended", at: Fixtures.instant(0)),
        TrackedEvent(name: "session-started", at: Fixtures.instant(1_500.25), properties: [
            "sessionId": .string(SessionID().description), "groupId": .string(GroupID().description), "origin": "manual",
            "outcome": "completed", "strict": true, "plannedEnd": .date(Fixtures.instant(3_000.125)),
        ]),
        TrackedEvent(name: "phase-started", at: Fixtures.instant(-86_400), properties: [
            "round": .int(-3), "lateMs": .int(Int.max), "ratio": .double(0.1), "whole": .double(3), "negative": .double(-2.5e-7),
            "huge": .double(1e300), "zero": .double(-0.0), "big": .double(9.3e18),
        ]),
        TrackedEvent(name: "quoted \"name\"\n", at: Fixtures.instant(59.999), properties: [
            "note": .string("tab\there, é, 日本, 🎯, \u{1}, back\\slash"), "": .string(""), "flag": false,
            "text date": .string("2026-11-25T09:00:00Z"),
        ]),
    ]

    @Test("each line is the bytes the Codable encoding wrote")
    func sameBytes() throws {
        for event in Self.events {
            let before = try JSONText.line(event)
            #expect(TrackedEventLine.line(event) == before, "\(String(decoding: before, as: UTF8.self))")
        }
    }

    @Test("an event Codable could not write (a number that is no finite number) is not written either")
    func unwritable() {
        for number in [Double.nan, .infinity, -.infinity] {
            let event = TrackedEvent(name: "x", at: Fixtures.instant(0), properties: ["n": .double(number)])
            #expect((try? JSONText.line(event)) == nil)
            #expect(TrackedEventLine.line(event) == nil)
        }
    }
}
