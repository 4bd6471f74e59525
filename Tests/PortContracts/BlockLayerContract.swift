import Domain
import Foundation

/// The rules every `BlockLayer` keeps: a user's block is enforced for that
/// user, another user's targets are not (nor told of), enforcing none lifts everything,
/// and the layer reports itself under its name. Each layer is given a
/// target of the kind it enforces (a domain for the hosts file and the
/// firewall, an app for the app layer).
public enum BlockLayerContract {
    public struct Subject: Sendable {
        public var layer: any BlockLayer
        /// Targets of the kind this layer enforces; the first two distinct.
        public var targets: [Target]

        public init(layer: any BlockLayer, targets: [Target]) {
            self.layer = layer
            self.targets = targets
        }
    }

    public typealias Factory = @Sendable () async throws -> Subject

    static func block(_ uid: UInt32, _ targets: [Target]) -> HeldBlock {
        HeldBlock(uid: uid, session: SessionID(), targets: targets, strict: false, plannedEnd: nil, length: nil, at: nil)
    }

    public static let checks: [ContractCheck<Factory>] = [
        ContractCheck("a user's block is enforced for that user; a target nobody blocks is not") { make in
            let subject = try await make()
            let (blocked, other) = (subject.targets[0], subject.targets[1])
            _ = try await subject.layer.enforce([block(1_000, [blocked])])
            let check = await subject.layer.check(blocked, for: 1_000)
            try requireEqual(check?.blocked, true, "\(blocked) for its user: \(String(describing: check))")
            try requireEqual(await subject.layer.check(other, for: 1_000)?.blocked ?? false, false, "\(other), blocked by no one")
        },
        ContractCheck("enforcing no block lifts every target") { make in
            let subject = try await make()
            _ = try await subject.layer.enforce([block(1_000, subject.targets)])
            _ = try await subject.layer.enforce([])
            for target in subject.targets {
                try requireEqual(await subject.layer.check(target, for: 1_000)?.blocked ?? false, false, "\(target) after lifting")
            }
        },
        ContractCheck("two users' blocks are enforced together: lowering one keeps the other's") { make in
            let subject = try await make()
            let (first, second) = (subject.targets[0], subject.targets[1])
            _ = try await subject.layer.enforce([block(1_000, [first]), block(1_001, [second])])
            _ = try await subject.layer.enforce([block(1_001, [second])])
            try requireEqual(await subject.layer.check(second, for: 1_001)?.blocked, true, "\(second) for the user still blocking it")
        },
        ContractCheck("a user's changed targets are enforced as they now are, another user's as they were (issue 44)") { make in
            let subject = try await make()
            let (first, second) = (subject.targets[0], subject.targets[1])
            _ = try await subject.layer.enforce([block(1_000, [first]), block(1_001, [second])])
            _ = try await subject.layer.enforce([block(1_000, [second]), block(1_001, [second])])
            try requireEqual(await subject.layer.check(first, for: 1_000)?.blocked ?? false, false, "\(first), no longer among 1000's targets")
            try requireEqual(await subject.layer.check(second, for: 1_000)?.blocked, true, "\(second), now among 1000's targets")
            try requireEqual(await subject.layer.check(second, for: 1_001)?.blocked, true, "\(second) for 1001, unchanged")
            _ = try await subject.layer.enforce([block(1_001, [second])])
            try requireEqual(await subject.layer.check(second, for: 1_000)?.blocked ?? false, false, "\(second) for 1000, whose block is gone")
            try requireEqual(await subject.layer.check(second, for: 1_001)?.blocked, true, "\(second) for 1001, who still blocks it")
        },
        ContractCheck("checks answers each target as check does, in the order asked") { make in
            let subject = try await make()
            let (first, second) = (subject.targets[0], subject.targets[1])
            _ = try await subject.layer.enforce([block(1_000, [first]), block(1_001, [second])])
            let asked = [second, first, second] + subject.targets.dropFirst(2)
            let batch = await subject.layer.checks(asked, for: 1_000)
            try requireEqual(batch.count, asked.count, "one answer a target")
            for (target, found) in zip(asked, batch) {
                let single = await subject.layer.check(target, for: 1_000)
                try requireEqual(found?.blocked, single?.blocked, "\(target): \(String(describing: found)) vs \(String(describing: single))")
            }
            try requireEqual(batch[1]?.blocked, true, "\(first) for its user")
            try requireEqual(await subject.layer.checks([], for: 1_000).count, 0, "no targets, no answers")
        },
        ContractCheck("another user learns nothing of a block: its check reads as when nobody blocks (issue 28)") { make in
            let subject = try await make()
            let target = subject.targets[0]
            let before = await subject.layer.check(target, for: 1_001)
            _ = try await subject.layer.enforce([block(1_000, [target])])
            try requireEqual(await subject.layer.check(target, for: 1_001), before, "\(target) asked by another user during the block")
        },
        ContractCheck("it reports itself under its name") { make in
            let subject = try await make()
            let report = await subject.layer.report()
            try requireEqual(report.name, subject.layer.name, "report's name")
            try require(!report.detail.isEmpty, "an empty detail")
        },
    ]
}
