import Adapters
import Domain
import Foundation

/// The rules every `KeyValueStore` keeps. Each check gets a fresh, empty store.
public enum KeyValueStoreContract {
    public typealias Factory = @Sendable () async throws -> any KeyValueStore

    struct Profile: Codable, Equatable {
        var name: String
        var since: Date
        var tags: [String]
        var ratio: Double
        var nested: [String: Int]
    }

    static let profile = Profile(name: "Ünïcødé \"quoted\"\n", since: Fixtures.instant(42), tags: ["a", ""],
                                 ratio: 0.1, nested: ["x": Int(Int32.max) * 4])

    public static let checks: [ContractCheck<Factory>] = [
        ContractCheck("a new suite is empty") { make in
            let store = try await make()
            try requireEqual(try store.values(of: "prefs"), [:], "values")
            try requireEqual(try store.keys(in: "prefs"), [], "keys")
            try require(try store.value(String.self, forKey: "missing", in: "prefs") == nil, "missing key")
        },
        ContractCheck("typed Codable values round-trip exactly") { make in
            let store = try await make()
            try store.set(profile, forKey: "profile", in: "prefs")
            try store.set(7, forKey: "count", in: "prefs")
            try store.set(true, forKey: "flag", in: "prefs")
            try requireEqual(try store.value(Profile.self, forKey: "profile", in: "prefs"), profile, "profile")
            try requireEqual(try store.value(Int.self, forKey: "count", in: "prefs"), 7, "count")
            try requireEqual(try store.value(Bool.self, forKey: "flag", in: "prefs"), true, "flag")
            try requireEqual(try store.keys(in: "prefs"), ["count", "flag", "profile"], "keys, sorted")
        },
        ContractCheck("one value read by its key is what the suite's values hold under it, defaults aside") { make in
            let store = try await make()
            store.register(defaults: ["level": .string("warning")], in: "prefs")
            try store.set(profile, forKey: "profile", in: "prefs")
            try store.set("x", forKey: "k", in: "prefs")
            try store.removeValue(forKey: "k", in: "prefs")
            let values = try store.values(of: "prefs")
            for key in ["profile", "k", "level", "missing"] {
                try requireEqual(try store.storedValue(forKey: key, in: "prefs"), values[key], key)
            }
            try require(try store.storedValue(forKey: "profile", in: "prefs") != nil, "a stored value")
            try require(try store.storedValue(forKey: "profile", in: "never-written") == nil, "another suite")
        },
        ContractCheck("values narrowed to some members are the values with only those members, other values whole") { make in
            let store = try await make()
            try store.set(profile, forKey: "profile", in: "prefs")
            try store.set("text", forKey: "k", in: "prefs")
            try store.set(["name": "n", "other": "o"], forKey: "named", in: "prefs")
            let narrowed = try store.values(of: "prefs", members: ["name", "tags"])
            try requireEqual(narrowed, try store.values(of: "prefs").mapValues { $0.narrowed(to: ["name", "tags"]) }, "narrowed")
            try requireEqual(narrowed["named"], .object(["name": .string("n")]), "an object's member")
            try requireEqual(narrowed["k"], .string("text"), "a value that is no object")
            for key in ["profile", "k", "named", "missing"] {
                try requireEqual(try store.storedValue(forKey: key, in: "prefs", members: ["name", "tags"]), narrowed[key], "one value narrowed: \(key)")
            }
        },
        ContractCheck("setting a key again replaces it; remove deletes it") { make in
            let store = try await make()
            try store.set("a", forKey: "k", in: "prefs")
            try store.set("b", forKey: "k", in: "prefs")
            try requireEqual(try store.value(String.self, forKey: "k", in: "prefs"), "b", "replaced")
            try store.removeValue(forKey: "k", in: "prefs")
            try require(try store.value(String.self, forKey: "k", in: "prefs") == nil, "removed")
            try store.removeValue(forKey: "never-set", in: "prefs")
        },
        ContractCheck("reading a value as the wrong type is a typed error") { make in
            let store = try await make()
            try store.set("text", forKey: "k", in: "prefs")
            do {
                _ = try store.value(Int.self, forKey: "k", in: "prefs")
                try require(false, "decoding text as Int succeeded")
            } catch let error as StoreError {
                try requireEqual(error.code, "store.typeMismatch", "error code")
            }
        },
        ContractCheck("discarding a suite's backups leaves its values, and the next write, as they were") { make in
            let store = try await make()
            try store.set("one", forKey: "k", in: "prefs")
            try store.set("two", forKey: "k", in: "prefs")
            try store.discardBackups(of: "prefs")
            try store.discardBackups(of: "never-written")
            try requireEqual(try store.value(String.self, forKey: "k", in: "prefs"), "two", "value after discarding")
            try store.set("three", forKey: "k", in: "prefs")
            try requireEqual(try store.value(String.self, forKey: "k", in: "prefs"), "three", "a write after discarding")
        },
        ContractCheck("suites are independent") { make in
            let store = try await make()
            try store.set(1, forKey: "k", in: "one")
            try store.set(2, forKey: "k", in: "two")
            try requireEqual(try store.value(Int.self, forKey: "k", in: "one"), 1, "suite one")
            try requireEqual(try store.value(Int.self, forKey: "k", in: "two"), 2, "suite two")
        },
        ContractCheck("registered defaults are read where nothing is stored, and never stored") { make in
            let store = try await make()
            store.register(defaults: ["level": .string("warning"), "shield": .string("none")], in: "prefs")
            try store.set("hosts", forKey: "shield", in: "prefs")
            try requireEqual(try store.value(String.self, forKey: "level", in: "prefs"), "warning", "default")
            try requireEqual(try store.value(String.self, forKey: "shield", in: "prefs"), "hosts", "stored beats default")
            try requireEqual(try store.values(of: "prefs"), ["shield": .string("hosts")], "stored values")
            try requireEqual(try store.dictionaryRepresentation(of: "prefs"),
                             ["shield": .string("hosts"), "level": .string("warning")], "dictionary representation")
            try store.removeValue(forKey: "shield", in: "prefs")
            try requireEqual(try store.value(String.self, forKey: "shield", in: "prefs"), "none", "default after remove")
        },
        ContractCheck("update changes several keys at once and returns its result") { make in
            let store = try await make()
            let result = try store.update("prefs") { values -> Int in
                values["a"] = .int(1)
                values["b"] = .array([.string("x"), .null, .double(2.5), .object(["y": .bool(false)])])
                return values.count
            }
            try requireEqual(result, 2, "result")
            try requireEqual(try store.values(of: "prefs")["b"],
                             .array([.string("x"), .null, .double(2.5), .object(["y": .bool(false)])]), "nested value")
        },
        ContractCheck("an update that throws stores nothing") { make in
            struct Abort: Error {}
            let store = try await make()
            try store.set(1, forKey: "k", in: "prefs")
            do {
                try store.update("prefs") { values in
                    values["k"] = .int(2)
                    values["other"] = .int(3)
                    throw Abort()
                }
            } catch is Abort {}
            try requireEqual(try store.values(of: "prefs"), ["k": .int(1)], "values after a failed update")
        },
        ContractCheck("concurrent read-modify-writes lose no update") { make in
            let store = try await make()
            try await withThrowingTaskGroup(of: Void.self) { tasks in
                for _ in 0..<50 {
                    tasks.addTask {
                        try store.update("counter") { values in
                            guard case .int(let count) = values["n"] ?? .int(0) else { return }
                            values["n"] = .int(count + 1)
                        }
                    }
                }
                try await tasks.waitForAll()
            }
            try requireEqual(try store.values(of: "counter")["n"], .int(50), "counter")
        },
        ContractCheck("changes are announced to observers in this process") { make in
            let store = try await make()
            let stream = store.changes()
            try store.set(1, forKey: "k", in: "prefs")
            try store.update("prefs") { _ in }   // no change, no announcement
            try store.set(2, forKey: "k", in: "other")
            var iterator = stream.makeAsyncIterator()
            try requireEqual(await iterator.next(), "prefs", "first change")
            try requireEqual(await iterator.next(), "other", "second change")
        },
        ContractCheck("suite names that are not plain file names are refused") { make in
            let store = try await make()
            for name in ["", "../escape", "a/b", ".hidden", "UPPER", "sp ace"] {
                do {
                    try store.set(1, forKey: "k", in: name)
                    try require(false, "suite name '\(name)' was accepted")
                } catch let error as StoreError {
                    try requireEqual(error, .invalidSuiteName(name), "error for '\(name)'")
                }
            }
        },
    ]
}

/// The rules every `SettingsStore` keeps.
public enum SettingsStoreContract {
    public typealias Factory = @Sendable () async throws -> any SettingsStore

    public static let checks: [ContractCheck<Factory>] = [
        ContractCheck("nothing is set at first") { make in
            let settings = try await make()
            try requireEqual(try await settings.all(), [:], "all()")
            try require(try await settings.value(for: "shield") == nil, "unset key")
        },
        ContractCheck("set, replace and unset") { make in
            let settings = try await make()
            try await settings.set("hosts", for: "shield")
            try await settings.set("on", for: "notify")
            try await settings.set("none", for: "shield")
            try requireEqual(try await settings.value(for: "shield"), "none", "replaced")
            try requireEqual(try await settings.all(), ["shield": "none", "notify": "on"], "all()")
            try await settings.unset("shield")
            try await settings.unset("never-set")
            try requireEqual(try await settings.all(), ["notify": "on"], "after unset")
        },
    ]
}
