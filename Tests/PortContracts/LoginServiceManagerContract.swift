import Domain
import Foundation

/// The rules of `LoginServiceManager`.
public enum LoginServiceManagerContract {
    /// A manager, where its definitions go, and what it holds.
    public struct Subject: Sendable {
        public var manager: any LoginServiceManager
        /// Where a definition is written (its directory exists).
        public var path: String
        /// Whether a manager answers here. Where none does, every call
        /// changes nothing and says what to run instead.
        public var reachable: Bool
        /// What the manager holds of the service now.
        public var observe: @Sendable () -> (running: Bool, enabledAtLogin: Bool)

        public init(manager: any LoginServiceManager, path: String, reachable: Bool,
                    observe: @escaping @Sendable () -> (running: Bool, enabledAtLogin: Bool)) {
            self.manager = manager
            self.path = path
            self.reachable = reachable
            self.observe = observe
        }

        func write() throws { try Data("definition\n".utf8).write(to: URL(fileURLWithPath: path)) }
        func remove() throws { try FileManager.default.removeItem(atPath: path) }
    }

    public typealias Factory = @Sendable () async throws -> Subject

    static func requireUnavailable(_ outcome: LoginServiceOutcome, _ what: String) throws {
        guard case .unavailable(let reason, let manually) = outcome else { throw violation("\(what): \(outcome), with no manager") }
        try require(!reason.isEmpty && !manually.isEmpty, "\(what): says why (\(reason)) and what to run (\(manually))")
    }

    static func violation(_ message: String) -> ContractViolation { ContractViolation(message: message, file: #filePath, line: #line) }

    public static let checks: [ContractCheck<Factory>] = [
        ContractCheck("enable: the service runs now and at every login, and the outcome says so; or, with no manager, nothing changes and it says how") { make in
            let subject = try await make()
            try subject.write()
            let outcome = subject.manager.enable(subject.path)
            guard subject.reachable else {
                try requireUnavailable(outcome, "enable")
                let held = subject.observe()
                try require(!held.running && !held.enabledAtLogin, "nothing changed with no manager: \(held)")
                return
            }
            guard case .done(let state) = outcome else { throw violation("enable: \(outcome)") }
            try require(!state.isEmpty, "enable: says the state")
            let held = subject.observe()
            try require(held.running && held.enabledAtLogin, "after enable: \(held)")
        },
        ContractCheck("disable with the file still there: stopped, and no longer started at login") { make in
            let subject = try await make()
            try subject.write()
            _ = subject.manager.enable(subject.path)
            let outcome = subject.manager.disable(subject.path)
            guard subject.reachable else { return try requireUnavailable(outcome, "disable") }
            guard case .done = outcome else { throw violation("disable: \(outcome)") }
            let held = subject.observe()
            try require(!held.running && !held.enabledAtLogin, "after disable: \(held)")
        },
        ContractCheck("forget after the file is removed; a later install is enabled and started again") { make in
            let subject = try await make()
            try subject.write()
            _ = subject.manager.enable(subject.path)
            _ = subject.manager.disable(subject.path)
            try subject.remove()
            let forgotten = subject.manager.forget(subject.path)
            guard subject.reachable else { return try requireUnavailable(forgotten, "forget") }
            guard case .done = forgotten else { throw violation("forget: \(forgotten)") }
            try subject.write()
            guard case .done = subject.manager.enable(subject.path) else { throw violation("enable again") }
            let held = subject.observe()
            try require(held.running && held.enabledAtLogin, "after the second enable: \(held)")
        },
        ContractCheck("enabling twice changes nothing the second time") { make in
            let subject = try await make()
            try subject.write()
            let first = subject.manager.enable(subject.path), second = subject.manager.enable(subject.path)
            try requireEqual(second, first, "the second enable's outcome")
            let held = subject.observe()
            if subject.reachable { try require(held.running && held.enabledAtLogin, "after two enables: \(held)") }
        },
    ]
}
