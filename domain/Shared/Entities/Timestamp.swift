import FoundationEssentials

/// Reads and writes instants as ISO-8601 / RFC 3339 text. Writing in UTC
/// with nine fractional digits is exactly reversible for any instant after
/// early 2001 (a `Date`'s resolution there is coarser than a nanosecond), so
/// a value stored and read back compares equal.
public enum Timestamp {
    private static let unixToReference: Int64 = 978_307_200

    /// `2026-11-22T06:15:51.123456789Z`, or with `offset` seconds east of UTC
    /// `2026-11-22T07:15:51+01:00`. The fraction has `fractionDigits` digits
    /// (9 keeps the instant exactly) and is left out when it is zero.
    public static func format(_ date: Date, offset: Int = 0, fractionDigits: Int = 9) -> String {
        let t = date.timeIntervalSinceReferenceDate
        guard t.isFinite, abs(t) < 1e13 else { return "1970-01-01T00:00:00Z" }
        var whole = Int64(t.rounded(.down))
        let digits = min(max(fractionDigits, 0), 9)
        let scale = (0..<digits).reduce(Int64(1)) { power, _ in power * 10 }
        var nanos = Int64(((t - Double(whole)) * Double(scale)).rounded())
        if nanos >= scale { whole += 1; nanos -= scale }
        let local = whole + unixToReference + Int64(offset)
        let days = local >= 0 ? local / 86_400 : (local - 86_399) / 86_400
        let secondOfDay = local - days * 86_400
        let (year, month, day) = civil(fromDays: days)
        // Written as bytes: joining a dozen small strings cost about 9 k
        // instructions a call, and a `stop` formats a dozen instants.
        var text: [UInt8] = []
        text.reserveCapacity(36)
        append(year, 4, to: &text, then: "-")
        append(month, 2, to: &text, then: "-")
        append(day, 2, to: &text, then: "T")
        append(secondOfDay / 3_600, 2, to: &text, then: ":")
        append(secondOfDay / 60 % 60, 2, to: &text, then: ":")
        append(secondOfDay % 60, 2, to: &text)
        if nanos != 0 {
            text.append(UInt8(ascii: "."))
            append(nanos, digits, to: &text)
        }
        if offset == 0 {
            text.append(UInt8(ascii: "Z"))
        } else {
            let minutes = abs(offset) / 60
            text.append(UInt8(ascii: offset < 0 ? "-" : "+"))
            append(Int64(minutes / 60), 2, to: &text, then: ":")
            append(Int64(minutes % 60), 2, to: &text)
        }
        return String(decoding: text, as: UTF8.self)
    }

    /// Parses `YYYY-MM-DDTHH:MM[:SS[.fraction]](Z|±HH:MM|±HHMM)`; nil if malformed.
    public static func parse(_ text: some StringProtocol) -> Date? {
        var text = String(text)
        return text.withUTF8 { parse(utf8: $0) }
    }

    /// `parse(_:)` over UTF-8 bytes, for readers that scan files without
    /// making strings.
    public static func parse(utf8 bytes: UnsafeBufferPointer<UInt8>) -> Date? {
        if let date = parseCanonical(bytes) { return date }
        var scanner = DigitScanner(bytes)
        guard let year = scanner.number(4), scanner.take(UInt8(ascii: "-")),
              let month = scanner.number(2), scanner.take(UInt8(ascii: "-")),
              let day = scanner.number(2), scanner.take(UInt8(ascii: "T")) || scanner.take(UInt8(ascii: "t")),
              let hour = scanner.number(2), scanner.take(UInt8(ascii: ":")),
              let minute = scanner.number(2) else { return nil }
        var second: Int64 = 0, nanos: Int64 = 0
        if scanner.take(UInt8(ascii: ":")) {
            guard let value = scanner.number(2) else { return nil }
            second = value
            if scanner.take(UInt8(ascii: ".")) {
                guard let (digits, count) = scanner.fraction() else { return nil }
                nanos = digits
                for _ in count..<9 { nanos *= 10 }
            }
        }
        var offset: Int64 = 0
        if !(scanner.take(UInt8(ascii: "Z")) || scanner.take(UInt8(ascii: "z"))) {
            let sign: Int64
            if scanner.take(UInt8(ascii: "+")) { sign = 1 } else if scanner.take(UInt8(ascii: "-")) { sign = -1 } else { return nil }
            guard let hours = scanner.number(2) else { return nil }
            _ = scanner.take(UInt8(ascii: ":"))
            guard let minutes = scanner.number(2), hours < 24, minutes < 60 else { return nil }
            offset = sign * (hours * 3_600 + minutes * 60)
        }
        guard scanner.atEnd, (1...12).contains(month), (1...daysIn(month: month, year: year)).contains(day),
              hour < 24, minute < 60, second < 60 else { return nil }
        let unix = days(fromCivil: year, month, day) * 86_400 + hour * 3_600 + minute * 60 + second - offset
        return Date(timeIntervalSinceReferenceDate: Double(unix - unixToReference) + Double(nanos) / 1e9)
    }

    /// The shape `format` writes (`YYYY-MM-DDTHH:MM:SS[.fraction]Z`), read
    /// at fixed positions: history files hold hundreds of thousands of these.
    /// Nil for any other shape, which the general scanner then reads.
    private static func parseCanonical(_ bytes: UnsafeBufferPointer<UInt8>) -> Date? {
        let count = bytes.count
        guard count >= 20, bytes[4] == 0x2D, bytes[7] == 0x2D, bytes[10] == 0x54, bytes[13] == 0x3A,
              bytes[16] == 0x3A, bytes[count - 1] == 0x5A else { return nil }
        var bad: UInt8 = 0
        func digits(_ start: Int, _ width: Int) -> Int64 {
            var value: Int64 = 0
            for index in start..<start + width {
                let digit = bytes[index] &- 48
                bad |= digit > 9 ? 1 : 0
                value = value * 10 + Int64(digit)
            }
            return value
        }
        let year = digits(0, 4), month = digits(5, 2), day = digits(8, 2)
        let hour = digits(11, 2), minute = digits(14, 2), second = digits(17, 2)
        var nanos: Int64 = 0
        if count > 20 {
            let width = count - 21
            guard bytes[19] == 0x2E, (1...9).contains(width) else { return nil }
            nanos = digits(20, width)
            for _ in width..<9 { nanos *= 10 }
        } else if bytes[19] != 0x5A {
            return nil
        }
        guard bad == 0, (1...12).contains(month), day >= 1, day <= daysIn(month: month, year: year),
              hour < 24, minute < 60, second < 60 else { return nil }
        let unix = days(fromCivil: year, month, day) * 86_400 + hour * 3_600 + minute * 60 + second
        return Date(timeIntervalSinceReferenceDate: Double(unix - unixToReference) + Double(nanos) / 1e9)
    }

    /// Days since 1970-01-01 to a proleptic Gregorian date (H. Hinnant's algorithm).
    public static func civil(fromDays z: Int64) -> (Int64, Int64, Int64) {
        let z = z + 719_468
        let era = (z >= 0 ? z : z - 146_096) / 146_097
        let doe = z - era * 146_097
        let yoe = (doe - doe / 1_460 + doe / 36_524 - doe / 146_096) / 365
        let doy = doe - (365 * yoe + yoe / 4 - yoe / 100)
        let mp = (5 * doy + 2) / 153
        let day = doy - (153 * mp + 2) / 5 + 1
        let month = mp < 10 ? mp + 3 : mp - 9
        return (yoe + era * 400 + (month <= 2 ? 1 : 0), month, day)
    }

    public static func days(fromCivil year: Int64, _ month: Int64, _ day: Int64) -> Int64 {
        let y = month <= 2 ? year - 1 : year
        let era = (y >= 0 ? y : y - 399) / 400
        let yoe = y - era * 400
        let doy = (153 * (month > 2 ? month - 3 : month + 9) + 2) / 5 + day - 1
        let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy
        return era * 146_097 + doe - 719_468
    }

    /// From the start of `first`'s month to the start of the month after
    /// `last`'s, in UTC: the months Timewarrior files them under.
    public static func utcMonths(from first: Date, through last: Date) -> Range<Date> {
        func monthStart(_ date: Date, plus months: Int64) -> Date {
            let day = Int64((date.timeIntervalSince1970 / 86_400).rounded(.down))
            let (year, month, _) = civil(fromDays: day)
            let index = year * 12 + (month - 1) + months
            let start = days(fromCivil: index >= 0 ? index / 12 : (index - 11) / 12, (index % 12 + 12) % 12 + 1, 1)
            return Date(timeIntervalSince1970: Double(start * 86_400))
        }
        return monthStart(first, plus: 0)..<monthStart(max(first, last), plus: 1)
    }

    public static func daysIn(month: Int64, year: Int64) -> Int64 {
        switch month {
        case 2: (year % 4 == 0 && year % 100 != 0) || year % 400 == 0 ? 29 : 28
        case 4, 6, 9, 11: 30
        default: 31
        }
    }

    /// `value` in decimal, zeros in front up to `width` characters (a sign
    /// counts as one, after the zeros, as `String(value)` padded reads).
    private static func append(_ value: Int64, _ width: Int, to text: inout [UInt8], then separator: Unicode.Scalar? = nil) {
        defer { if let separator { text.append(UInt8(ascii: separator)) } }
        var magnitude = value.magnitude, count = 1
        var probe = magnitude
        while probe >= 10 { probe /= 10; count += 1 }
        let length = count + (value < 0 ? 1 : 0)
        if width > length { text.append(contentsOf: repeatElement(UInt8(ascii: "0"), count: width - length)) }
        if value < 0 { text.append(UInt8(ascii: "-")) }
        let start = text.count
        text.append(contentsOf: repeatElement(0, count: count))
        for index in stride(from: start + count - 1, through: start, by: -1) {
            text[index] = UInt8(ascii: "0") + UInt8(magnitude % 10)
            magnitude /= 10
        }
    }
}

/// Reads fixed-width decimal fields from ASCII bytes.
private struct DigitScanner {
    let bytes: UnsafeBufferPointer<UInt8>
    var index = 0

    init(_ bytes: UnsafeBufferPointer<UInt8>) { self.bytes = bytes }

    var atEnd: Bool { index == bytes.count }

    mutating func take(_ byte: UInt8) -> Bool {
        guard index < bytes.count, bytes[index] == byte else { return false }
        index += 1
        return true
    }

    mutating func number(_ width: Int) -> Int64? {
        guard index + width <= bytes.count else { return nil }
        var value: Int64 = 0
        for byte in bytes[index..<index + width] {
            guard (48...57).contains(byte) else { return nil }
            value = value * 10 + Int64(byte - 48)
        }
        index += width
        return value
    }

    /// One to nine fraction digits (more are read and ignored): value and count kept.
    mutating func fraction() -> (Int64, Int)? {
        var value: Int64 = 0, count = 0
        while index < bytes.count, (48...57).contains(bytes[index]) {
            if count < 9 { value = value * 10 + Int64(bytes[index] - 48); count += 1 }
            index += 1
        }
        return count == 0 ? nil : (value, count)
    }
}
