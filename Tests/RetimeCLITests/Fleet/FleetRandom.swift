import PortContracts

/// The simulation's one source of chance: the suite's SplitMix64
/// (`SeededGenerator`), so a seed replays the same run on any machine, bit
/// for bit.
struct FleetRandom: RandomNumberGenerator {
    private var source: SeededGenerator

    init(seed: UInt64) { source = SeededGenerator(seed: seed) }

    mutating func next() -> UInt64 { source.next() }

    /// An index below `count` (0 when `count` is 0 or 1).
    mutating func below(_ count: Int) -> Int { count <= 1 ? 0 : Int(next() % UInt64(count)) }

    /// True with probability `percent` in 100.
    mutating func chance(_ percent: Int) -> Bool { below(100) < percent }

    /// One of `choices`, each as likely as its weight.
    mutating func weighted<T>(_ choices: [(Int, T)]) -> T {
        var roll = below(choices.reduce(0) { $0 + $1.0 })
        for (weight, choice) in choices {
            if roll < weight { return choice }
            roll -= weight
        }
        return choices[choices.count - 1].1
    }

    /// A lowercase UUID made of the stream (a device or session id).
    mutating func uuid() -> String {
        let a = next(), b = next()
        let hex = String(a, radix: 16).leftPadded(16) + String(b, radix: 16).leftPadded(16)
        let c = Array(hex)
        return String(c[0..<8]) + "-" + String(c[8..<12]) + "-4" + String(c[13..<16]) + "-8" + String(c[17..<20]) + "-" + String(c[20..<32])
    }
}

extension String {
    fileprivate func leftPadded(_ width: Int) -> String { String(repeating: "0", count: max(0, width - count)) + self }
}
