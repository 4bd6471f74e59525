import Domain
import Foundation

/// The rules every `PresenceSignals` keeps: it says whether it works here
/// and why not; an unavailable one finishes its changes at once; an
/// available one first tells the state as of the call, then every change
/// in order, to every consumer.
public enum PresenceSignalsContract {
    public struct Subject: Sendable {
        public var signals: any PresenceSignals
        /// Makes the source report `state` (nil: a source a test cannot drive).
        public var drive: (@Sendable (PresenceChange.State) async throws -> Void)?

        public init(signals: any PresenceSignals, drive: (@Sendable (PresenceChange.State) async throws -> Void)?) {
            self.signals = signals
            self.drive = drive
        }
    }

    public typealias Factory = @Sendable () async throws -> Subject

    /// The first `count` changes of `stream`, or fewer if it finishes.
    static func first(_ count: Int, of stream: AsyncStream<PresenceChange>) async -> [PresenceChange] {
        var taken: [PresenceChange] = []
        for await change in stream {
            taken.append(change)
            if taken.count == count { break }
        }
        return taken
    }

    public static let checks: [ContractCheck<Factory>] = [
        ContractCheck("it names its source, or says why it has none") { make in
            switch await try make().signals.availability() {
            case .available(let source): try require(!source.isEmpty, "an available source without a name")
            case .unavailable(let reason): try require(!reason.isEmpty, "unavailable without a reason")
            }
        },
        ContractCheck("an unavailable source's changes finish at once") { make in
            let subject = try await make()
            guard case .unavailable = await subject.signals.availability() else { return }
            try requireEqual(await first(1, of: subject.signals.changes()).count, 0, "changes of an unavailable source")
        },
        ContractCheck("an available source tells the state as of the call first, then each change in order, to every consumer") { make in
            let subject = try await make()
            guard case .available = await subject.signals.availability(), let drive = subject.drive else { return }
            try await drive(.present)
            let one = subject.signals.changes(), two = subject.signals.changes()
            try await drive(.locked)
            try await drive(.present)
            for stream in [one, two] {
                let states = await first(3, of: stream).map(\.state)
                try requireEqual(states, [.present, .locked, .present], "states heard")
            }
        },
    ]
}
