import Domain
import Foundation
import Testing

@Suite("Instants in error messages")
struct ErrorInstantTests {
    static let until = Date(timeIntervalSince1970: 1_795_000_000)   // 2026-11-18T11:06:40Z

    static let errors: [any RetimeError] = [
        SessionError.strict(until: until),
        SessionError.alreadyActive(SessionID(), until: until),
        GroupError.locked(name: "work", until: until),
        AuthError.lockedOut(until: until),
        AuthError.wrongPasscode(attemptsLeft: 0, lockedUntil: until),
        AuthError.strictSession(until: until),
        SettingError.lockedByStrictSession(key: "shield", until: until),
    ]

    @Test("the domain writes an instant in UTC, and a composition root may write it its own way", arguments: errors.indices)
    func instants(index: Int) {
        let error = Self.errors[index]
        #expect(error.description.contains("2026-11-18T11:06:40Z"), "\(error.description)")
        let local = error.message(writingInstants: { "at \($0.timeIntervalSince1970)" })
        #expect(local.contains("at 1795000000.0") && !local.contains("2026-11-18"), "\(local)")
        // Only the instant changes: the rest of the message is the same words.
        #expect(local.replacingOccurrences(of: "at 1795000000.0", with: "2026-11-18T11:06:40Z") == error.description)
    }

    @Test("an error that names no instant says the same either way")
    func withoutInstants() {
        let error = SessionError.notActive
        #expect(error.message(writingInstants: { _ in "never" }) == error.description)
    }
}
