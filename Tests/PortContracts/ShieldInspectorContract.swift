import Domain

/// The rules every `ShieldInspector` keeps: a check per target asked
/// about, in order, each with what its layers found, none twice; and
/// nothing said to be blocked that no layer holds.
public enum ShieldInspectorContract {
    /// An inspector of a machine where no layer holds anything for the
    /// caller (no block is up).
    public typealias Factory = @Sendable () async throws -> any ShieldInspector

    static let targets = try! ["blocked.test", "app:retime-contract-app", "www.open.test"].map { try Target(parsing: $0) }

    public static let checks: [ContractCheck<Factory>] = [
        ContractCheck("one check per target, in the order asked, each naming its target") { make in
            let checks = await (try await make()).check(targets)
            try requireEqual(checks.map(\.target), targets, "the targets checked")
        },
        ContractCheck("every check has findings, and each layer speaks once") { make in
            for check in await (try await make()).check(targets) {
                try require(!check.layers.isEmpty, "\(check.target) has findings")
                try requireEqual(Set(check.layers.map(\.layer)).count, check.layers.count, "\(check.target)'s layers are distinct")
                try require(check.layers.allSatisfy { !$0.detail.isEmpty }, "\(check.target)'s findings say why")
            }
        },
        ContractCheck("with no block up, no target is blocked: not an app that is not running, not a name that does not resolve") { make in
            for check in await (try await make()).check(targets) {
                try require(check.verdict != .blocked, "\(check.target) is \(check.verdict) although nothing holds it: \(check.layers)")
                try require(!check.layers.contains { $0.kind == .layer && $0.verdict == .blocked }, "\(check.target): a layer claims it")
            }
        },
        ContractCheck("nothing asked, nothing checked") { make in
            try require(await (try await make()).check([]).isEmpty, "no checks")
        },
    ]
}
