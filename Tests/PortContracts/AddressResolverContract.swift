import Domain

/// The rules every `AddressResolver` keeps, over a world of records the
/// factory is given (what the DNS holds).
public enum AddressResolverContract {
    /// Makes a resolver whose DNS holds `records` (name to addresses as
    /// text), answering with `ttl`.
    public typealias Factory = @Sendable (_ records: [String: [String]], _ ttl: Int) async throws -> any AddressResolver

    static let records: [String: [String]] = ["a.test": ["10.0.0.2", "fd00::2"], "b.test": ["10.0.0.3"]]

    public static let checks: [ContractCheck<Factory>] = [
        ContractCheck("a name's A and AAAA records both come back, with their time-to-live") { make in
            let resolver = try await make(records, 120)
            let found = await resolver.resolve(["a.test", "b.test"])
            try requireEqual(Set(found["a.test"]?.addresses.map(\.description) ?? []), ["10.0.0.2", "fd00::2"], "a.test")
            try requireEqual(Set(found["b.test"]?.addresses.map(\.description) ?? []), ["10.0.0.3"], "b.test")
            try requireEqual(found["a.test"]?.timeToLive, 120, "the records' time-to-live")
        },
        ContractCheck("a name that does not exist is answered, with no address") { make in
            let resolver = try await make(records, 120)
            let found = await resolver.resolve(["missing.test"])
            try require(found["missing.test"] != nil, "answered")
            try require(found["missing.test"]?.addresses.isEmpty == true, "no address")
        },
        ContractCheck("five hundred names at once are all answered") { make in
            var many: [String: [String]] = [:]
            for index in 0..<500 { many["n\(index).test"] = ["10.1.\(index / 256).\(index % 256)"] }
            let resolver = try await make(many, 60)
            let found = await resolver.resolve(many.keys.sorted())
            try requireEqual(found.count, 500, "answers")
            try requireEqual(found["n300.test"]?.addresses.map(\.description), ["10.1.1.44"], "one of them")
        },
        ContractCheck("no names, no answers") { make in
            let resolver = try await make(records, 60)
            try require(await resolver.resolve([]).isEmpty, "nothing")
        },
    ]
}
