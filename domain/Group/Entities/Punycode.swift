/// RFC 3492 Punycode, the encoding IDNA uses to carry a Unicode label in
/// ASCII (`bücher` <-> `bcher-kva`). Written here because Foundation on Linux
/// has no IDNA support.
enum Punycode {
    private static let base = 36, tMin = 1, tMax = 26, skew = 38, damp = 700
    private static let initialBias = 72, initialN = 128

    /// Encodes a label's scalars; nil if arithmetic would overflow.
    static func encode(_ input: [Unicode.Scalar]) -> String? {
        let codePoints = input.map { Int($0.value) }
        var output = codePoints.filter { $0 < 0x80 }.map { Character(Unicode.Scalar(UInt8($0))) }
        let basicCount = output.count
        var handled = basicCount
        if basicCount > 0 { output.append("-") }
        var n = initialN, delta = 0, bias = initialBias
        while handled < codePoints.count {
            guard let m = codePoints.filter({ $0 >= n }).min() else { return nil }
            let (step, overflow) = (m - n).multipliedReportingOverflow(by: handled + 1)
            guard !overflow, delta <= Int(Int32.max) - step else { return nil }
            delta += step
            n = m
            for c in codePoints {
                if c < n { delta += 1 }
                guard c == n else { continue }
                var q = delta
                var k = base
                while true {
                    let t = threshold(k, bias)
                    if q < t { break }
                    output.append(digit(t + (q - t) % (base - t)))
                    q = (q - t) / (base - t)
                    k += base
                }
                output.append(digit(q))
                bias = adapt(delta, handled + 1, handled == basicCount)
                delta = 0
                handled += 1
            }
            delta += 1
            n += 1
        }
        return String(output)
    }

    /// Decodes the part of a label after `xn--`; nil if it is not valid Punycode.
    static func decode(_ input: Substring) -> [Unicode.Scalar]? {
        var output: [Int] = []
        var rest = input[...]
        if let dash = input.lastIndex(of: "-") {
            for ch in input[..<dash] {
                guard let ascii = ch.asciiValue else { return nil }
                output.append(Int(ascii))
            }
            rest = input[input.index(after: dash)...]
        }
        var n = initialN, i = 0, bias = initialBias
        var digits = rest.makeIterator()
        var pending = digits.next()
        while pending != nil {
            let oldI = i
            var w = 1
            var k = base
            while true {
                guard let ch = pending, let d = value(of: ch) else { return nil }
                pending = digits.next()
                let (product, overflow) = d.multipliedReportingOverflow(by: w)
                guard !overflow, i <= Int(Int32.max) - product else { return nil }
                i += product
                let t = threshold(k, bias)
                if d < t { break }
                guard pending != nil else { return nil }
                w *= base - t
                guard w <= Int(Int32.max) else { return nil }
                k += base
            }
            bias = adapt(i - oldI, output.count + 1, oldI == 0)
            n += i / (output.count + 1)
            i %= output.count + 1
            guard n <= 0x10FFFF else { return nil }
            output.insert(n, at: i)
            i += 1
        }
        return output.compactMap { Unicode.Scalar(UInt32($0)) }.count == output.count
            ? output.map { Unicode.Scalar(UInt32($0))! } : nil
    }

    private static func threshold(_ k: Int, _ bias: Int) -> Int {
        k <= bias ? tMin : (k >= bias + tMax ? tMax : k - bias)
    }

    private static func adapt(_ delta: Int, _ count: Int, _ first: Bool) -> Int {
        var delta = first ? delta / damp : delta / 2
        delta += delta / count
        var k = 0
        while delta > ((base - tMin) * tMax) / 2 {
            delta /= base - tMin
            k += base
        }
        return k + (base - tMin + 1) * delta / (delta + skew)
    }

    private static func digit(_ d: Int) -> Character {
        Character(Unicode.Scalar(UInt8(d < 26 ? 97 + d : 22 + d)))
    }

    private static func value(of ch: Character) -> Int? {
        guard let a = ch.asciiValue else { return nil }
        switch a {
        case 48...57: return Int(a) - 22
        case 65...90: return Int(a) - 65
        case 97...122: return Int(a) - 97
        default: return nil
        }
    }
}
