import Domain
import Foundation

/// The rules every `EnforcerPasscodes` keeps: setting a passcode, changing
/// it from the one set and removing the new one are accepted; an enforcer
/// that keeps the passcode refuses a change or removal from a wrong one
/// (and still takes the right one after), and one that keeps none refuses
/// nothing (under the `none` and `hosts` shields the user's own data
/// decides, so the enforcer must never stand in the way).
public enum EnforcerPasscodesContract {
    public struct Subject: Sendable {
        public var enforcer: any EnforcerPasscodes
        /// Whether it keeps the passcode itself (the system service does).
        public var keepsPasscode: Bool

        public init(enforcer: any EnforcerPasscodes, keepsPasscode: Bool) {
            self.enforcer = enforcer
            self.keepsPasscode = keepsPasscode
        }
    }

    public typealias Factory = @Sendable () async throws -> Subject

    public static let checks: [ContractCheck<Factory>] = [
        ContractCheck("set, change from the one set, remove the new one: each is accepted, and a passcode can be set again") { make in
            let subject = try await make()
            try await subject.enforcer.set(Passcode("first one 1"))
            try await subject.enforcer.change(from: Passcode("first one 1"), to: Passcode("second one 2"))
            try await subject.enforcer.remove(Passcode("second one 2"))
            try await subject.enforcer.set(Passcode("third one 3"))
        },
        ContractCheck("a change or removal from a wrong passcode is refused by a keeper (the right one works after), and by nothing else") { make in
            let subject = try await make()
            try await subject.enforcer.set(Passcode("kept one 1"))
            var refused = 0
            do { try await subject.enforcer.change(from: Passcode("wrong"), to: Passcode("other 2")) } catch { refused += 1 }
            do { try await subject.enforcer.remove(Passcode("wrong")) } catch { refused += 1 }
            try requireEqual(refused, subject.keepsPasscode ? 2 : 0, "refusals of a wrong passcode")
            if subject.keepsPasscode {
                try await subject.enforcer.change(from: Passcode("kept one 1"), to: Passcode("other 2"))
                try await subject.enforcer.remove(Passcode("other 2"))
            }
        },
        ContractCheck("a keeper says whether it holds a passcode and checks it (wrong refused, right accepted); any other holds none and checks none") { make in
            let subject = try await make()
            let before = try await subject.enforcer.heldPasscode()
            try requireEqual(before, subject.keepsPasscode ? false : nil, "held before a passcode is set")
            try await subject.enforcer.set(Passcode("checked one 1"))
            let after = try await subject.enforcer.heldPasscode()
            try requireEqual(after, subject.keepsPasscode ? true : nil, "held once set")
            var wrongRefused = false
            do { try await subject.enforcer.verify(Passcode("wrong"), action: "contract") } catch { wrongRefused = true }
            try requireEqual(wrongRefused, true, "a wrong passcode is refused (by a non-keeper: it checks nothing)")
            let counted = try await subject.enforcer.passcodeState()?.failedAttempts
            try requireEqual(counted, subject.keepsPasscode ? 1 : nil, "the wrong attempt counted by a keeper's lockout")
            var rightAccepted = true
            do { try await subject.enforcer.verify(Passcode("checked one 1"), action: "contract") } catch { rightAccepted = false }
            try requireEqual(rightAccepted, subject.keepsPasscode, "the right passcode is accepted by a keeper only")
            try await subject.enforcer.remove(Passcode("checked one 1"))
            let removed = try await subject.enforcer.heldPasscode()
            try requireEqual(removed, subject.keepsPasscode ? false : nil, "held once removed")
        },
    ]
}
