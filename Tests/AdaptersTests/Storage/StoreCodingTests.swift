import Adapters
import Domain
import Foundation
import JSONDocument
import PortContracts
import Testing

/// The store reads and writes values without Foundation's JSON coders. What
/// it stores must be exactly what those coders stored, so that files written
/// by earlier versions read back and files written now look the same.
@Suite("Store values: the direct JSONValue coders agree with JSONEncoder/JSONDecoder")
struct StoreCodingTests {
    /// What the store held for `value` before: JSON text from the store's
    /// encoder, parsed back into a tree by JSONDecoder.
    static func previousEncoding<T: Encodable>(_ value: T) throws -> JSONValue {
        try JSONDecoder().decode(JSONValue.self, from: StoreJSON.encoder().encode(value))
    }

    static func groups() throws -> [Group] {
        [Fixtures.group("work"), Fixtures.group("Ünïcode 👩‍💻 name", targets: []),
         Group(name: try GroupName("renamed"), targets: [try Target(parsing: "news.example.org")], createdAt: Fixtures.instant(5),
               updatedAt: Fixtures.instant(1_234.5))]
    }

    static func schedules() -> [Schedule] {
        var late = Fixtures.schedule("late", from: "22:00", to: "02:30:15")
        late.warnSeconds = 90.5
        late.strict = true
        late.enabled = false
        return [Fixtures.schedule("weekday mornings"), late]
    }

    static func authStates() -> [AuthState] {
        [AuthState(), AuthState(passcodeHash: "$y$j9T$salt$hash", failedAttempts: 7, lockedUntil: Fixtures.instant(3_600.25),
                               shieldAuthorization: .approved)]
    }

    @Test("sessions, groups, schedules and auth states encode to the tree the old path stored")
    func sameTrees() throws {
        for session in SessionLineEncoderTests.sessions() {
            #expect(try JSONValueEncoder().encode(session) == Self.previousEncoding(session))
        }
        for group in try Self.groups() { #expect(try JSONValueEncoder().encode(group) == Self.previousEncoding(group)) }
        for schedule in Self.schedules() { #expect(try JSONValueEncoder().encode(schedule) == Self.previousEncoding(schedule)) }
        for state in Self.authStates() { #expect(try JSONValueEncoder().encode(state) == Self.previousEncoding(state)) }
        let mixed: [String: [Double]] = ["whole": [3, -0.0, 1e21, 1_700_000_000], "fractions": [0.1, -2.5, 1.2345678901234568e17]]
        #expect(try JSONValueEncoder().encode(mixed) == Self.previousEncoding(mixed))
    }

    @Test("what the old path stored decodes to the same values")
    func readsOldTrees() throws {
        for session in SessionLineEncoderTests.sessions() {
            #expect(try JSONValueDecoder().decode(Session.self, from: Self.previousEncoding(session)) == session)
        }
        for group in try Self.groups() { #expect(try JSONValueDecoder().decode(Group.self, from: Self.previousEncoding(group)) == group) }
        for schedule in Self.schedules() {
            #expect(try JSONValueDecoder().decode(Schedule.self, from: Self.previousEncoding(schedule)) == schedule)
        }
        for state in Self.authStates() {
            #expect(try JSONValueDecoder().decode(AuthState.self, from: Self.previousEncoding(state)) == state)
        }
    }

    @Test("numbers decode into any type that holds them exactly, and nothing else")
    func numbers() throws {
        let decoder = JSONValueDecoder()
        #expect(try decoder.decode(Int.self, from: .double(3)) == 3)
        #expect(try decoder.decode(Double.self, from: .int(3)) == 3)
        #expect(try decoder.decode(UInt8.self, from: .int(255)) == 255)
        #expect(throws: DecodingError.self) { try decoder.decode(Int.self, from: .double(3.5)) }
        #expect(throws: DecodingError.self) { try decoder.decode(UInt8.self, from: .int(256)) }
        #expect(throws: DecodingError.self) { try decoder.decode(UInt.self, from: .int(-1)) }
        #expect(throws: DecodingError.self) { try decoder.decode(String.self, from: .int(1)) }
        #expect(throws: EncodingError.self) { try JSONValueEncoder().encode([Double.nan]) }
        #expect(throws: EncodingError.self) { try JSONValueEncoder().encode(UInt64.max) }
    }

    @Test("a stored value of the wrong shape is a type mismatch naming the key, not a crash")
    func mismatches() throws {
        let store = InMemoryKeyValueStore()
        try store.update("s") { $0["current"] = .object(["id": .int(4)]) }
        #expect { _ = try store.value(Session.self, forKey: "current", in: "s") } throws: { error in
            guard case StoreError.typeMismatch(let key, _)? = error as? StoreError else { return false }
            return key == "current"
        }
        try store.update("s") { $0["dates"] = .array([.string("yesterday")]) }
        #expect(throws: StoreError.self) { _ = try store.value([Date].self, forKey: "dates", in: "s") }
    }

    @Test("optionals: absent and null both read as nil; nil is written as absent")
    func optionals() throws {
        struct Box: Codable, Equatable { var a: Int?; var b: String? }
        #expect(try JSONValueDecoder().decode(Box.self, from: .object(["a": .null])) == Box(a: nil, b: nil))
        #expect(try JSONValueEncoder().encode(Box(a: 1, b: nil)) == .object(["a": .int(1)]))
        #expect(try JSONValueEncoder().encode([Int?]([1, nil])) == .array([.int(1), .null]))
    }
}
