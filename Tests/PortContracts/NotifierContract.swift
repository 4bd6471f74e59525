import Domain
import Foundation

/// The rules every `Notifier` keeps: each event it is given is shown, once,
/// and giving it one returns at once (a stuck desktop never holds retime
/// up). The factory gives the notifier and a way to read back the titles
/// shown (waiting for `count` of them, for adapters that show in the
/// background).
public enum NotifierContract {
    public struct Subject: Sendable {
        public var notifier: any Notifier
        public var shown: @Sendable (_ count: Int) async throws -> [String]

        public init(notifier: any Notifier, shown: @escaping @Sendable (Int) async throws -> [String]) {
            self.notifier = notifier
            self.shown = shown
        }
    }

    public typealias Factory = @Sendable () async throws -> Subject

    public static let checks: [ContractCheck<Factory>] = [
        ContractCheck("a session's end and an interval's warning are each shown once, and notify returns at once") { make in
            let subject = try await make()
            let events = [EventHooksContract.event(.sessionEnded, at: 0), EventHooksContract.event(.intervalWarning, at: 60)]
            let started = Date()
            for event in events { subject.notifier.notify(event) }
            try require(Date().timeIntervalSince(started) < 1, "notify held the caller \(Date().timeIntervalSince(started)) s")
            let shown = try await subject.shown(events.count)
            try requireEqual(shown.count, events.count, "notifications shown: \(shown)")
            try require(shown.allSatisfy { !$0.isEmpty }, "an empty title: \(shown)")
        },
    ]
}
