import Domain

/// Reads the tz database's compiled files (TZif, RFC 8536) and POSIX TZ
/// strings into `TimeZoneRules`.
enum TZifFile {
    /// The rules of a TZif file's bytes, or nil if they are not one.
    /// Version 2 and later files are read from their 64-bit data and
    /// their footer (the TZ string for instants after the last
    /// transition); version 1 files from their 32-bit data.
    static func rules(_ bytes: [UInt8], identifier: String) -> TimeZoneRules? {
        var reader = Reader(bytes: bytes)
        guard let first = reader.header() else { return nil }
        guard first.version >= 2 else { return reader.block(first, timeSize: 4, identifier: identifier, footer: nil) }
        reader.skip(first.length(timeSize: 4))
        guard let second = reader.header() else { return nil }
        let block = reader
        reader.skip(second.length(timeSize: 8))
        return block.block(second, timeSize: 8, identifier: identifier, footer: reader.footer())
    }

    /// A POSIX TZ string (`CET-1CEST,M3.5.0,M10.5.0/3`, `<+0530>-5:30`,
    /// `EST5EDT`) as a rule, or nil if it is not one.
    static func rule(_ text: String) -> RecurringRule? {
        var scanner = TZScanner(Array(text.utf8))
        guard scanner.name(), let standardOffset = scanner.offset() else { return nil }
        let standard = LocalTimeType(offset: -standardOffset, isDaylightSaving: false)
        if scanner.atEnd { return RecurringRule(standard: standard, daylight: nil) }
        guard scanner.name() else { return nil }
        var daylightOffset = standard.offset + 3_600
        if !scanner.atEnd, scanner.peek != UInt8(ascii: ",") {
            guard let written = scanner.offset() else { return nil }
            daylightOffset = -written
        }
        let daylight = LocalTimeType(offset: daylightOffset, isDaylightSaving: true)
        // No dates: the US rules, as glibc assumes.
        guard scanner.take(UInt8(ascii: ",")) else {
            guard scanner.atEnd else { return nil }
            return RecurringRule(standard: standard, daylight: (daylight, .weekday(month: 3, week: 2, day: 0), 7_200,
                                                                .weekday(month: 11, week: 1, day: 0), 7_200))
        }
        guard let start = scanner.day() else { return nil }
        let startTime = scanner.take(UInt8(ascii: "/")) ? scanner.time() : 7_200
        guard let startTime, scanner.take(UInt8(ascii: ",")), let end = scanner.day() else { return nil }
        let endTime = scanner.take(UInt8(ascii: "/")) ? scanner.time() : 7_200
        guard let endTime, scanner.atEnd else { return nil }
        return RecurringRule(standard: standard, daylight: (daylight, start, startTime, end, endTime))
    }

    struct Header {
        var version: Int
        var isutcnt, isstdcnt, leapcnt, timecnt, typecnt, charcnt: Int

        func length(timeSize: Int) -> Int {
            timecnt * timeSize + timecnt + typecnt * 6 + charcnt + leapcnt * (timeSize + 4) + isstdcnt + isutcnt
        }
    }

    struct Reader {
        let bytes: [UInt8]
        var at = 0

        init(bytes: [UInt8]) { self.bytes = bytes }

        mutating func header() -> Header? {
            guard at + 44 <= bytes.count, bytes[at..<at + 4].elementsEqual("TZif".utf8) else { return nil }
            let versionByte = bytes[at + 4]
            let version = versionByte == 0 ? 1 : Int(versionByte) - 0x30
            guard version >= 1 else { return nil }
            var counts: [Int] = []
            for index in 0..<6 { counts.append(Int(uint32(at + 20 + index * 4))) }
            at += 44
            let header = Header(version: version, isutcnt: counts[0], isstdcnt: counts[1], leapcnt: counts[2],
                                timecnt: counts[3], typecnt: counts[4], charcnt: counts[5])
            guard header.typecnt > 0 else { return nil }
            return header
        }

        mutating func skip(_ count: Int) { at += count }

        /// The footer's TZ string, if it has one.
        mutating func footer() -> String? {
            guard at < bytes.count, bytes[at] == UInt8(ascii: "\n") else { return nil }
            guard let end = bytes[(at + 1)...].firstIndex(of: UInt8(ascii: "\n")), end > at + 1 else { return nil }
            return String(decoding: bytes[(at + 1)..<end], as: UTF8.self)
        }

        func block(_ header: Header, timeSize: Int, identifier: String, footer: String?) -> TimeZoneRules? {
            guard at + header.length(timeSize: timeSize) <= bytes.count else { return nil }
            var cursor = at
            var times: [Int64] = []
            for _ in 0..<header.timecnt {
                times.append(timeSize == 8 ? Int64(bitPattern: uint64(cursor)) : Int64(Int32(bitPattern: uint32(cursor))))
                cursor += timeSize
            }
            let indices = Array(bytes[cursor..<cursor + header.timecnt])
            cursor += header.timecnt
            var types: [LocalTimeType] = []
            for _ in 0..<header.typecnt {
                types.append(LocalTimeType(offset: Int(Int32(bitPattern: uint32(cursor))), isDaylightSaving: bytes[cursor + 4] != 0))
                cursor += 6
            }
            guard indices.allSatisfy({ Int($0) < types.count }) else { return nil }
            // Before the first transition: the first standard-time type, as
            // Python's zoneinfo and glibc read it.
            let initial = types.first { !$0.isDaylightSaving } ?? types[0]
            let transitions = zip(times, indices).map { (at: $0, type: types[Int($1)]) }
            var rule = footer.flatMap { $0.isEmpty ? nil : TZifFile.rule($0) }
            if footer != nil, rule == nil, transitions.isEmpty { rule = RecurringRule(standard: types[0], daylight: nil) }
            return TimeZoneRules(identifier: identifier, transitions: transitions, initial: initial, rule: rule)
        }

        private func uint32(_ index: Int) -> UInt32 {
            bytes[index..<index + 4].reduce(0) { $0 << 8 | UInt32($1) }
        }

        private func uint64(_ index: Int) -> UInt64 {
            bytes[index..<index + 8].reduce(0) { $0 << 8 | UInt64($1) }
        }
    }
}

/// The parts of a POSIX TZ string.
private struct TZScanner {
    let bytes: [UInt8]
    var at = 0

    init(_ bytes: [UInt8]) { self.bytes = bytes }

    var atEnd: Bool { at == bytes.count }
    var peek: UInt8? { at < bytes.count ? bytes[at] : nil }

    mutating func take(_ byte: UInt8) -> Bool {
        guard peek == byte else { return false }
        at += 1
        return true
    }

    /// `CET` (three or more letters) or `<+0530>` (quoted).
    mutating func name() -> Bool {
        if take(UInt8(ascii: "<")) {
            guard let close = bytes[at...].firstIndex(of: UInt8(ascii: ">")), close - at >= 3 else { return false }
            at = close + 1
            return true
        }
        let start = at
        while let byte = peek, (0x41...0x5A).contains(byte) || (0x61...0x7A).contains(byte) { at += 1 }
        return at - start >= 3
    }

    /// `[+-]hh[:mm[:ss]]` in seconds (POSIX: positive west of Greenwich).
    mutating func offset() -> Int? { signedTime(maxHours: 24) }

    /// A rule's time of day, `[+-]hh[:mm[:ss]]`, hours up to 167 (RFC 8536).
    mutating func time() -> Int? { signedTime(maxHours: 167) }

    private mutating func signedTime(maxHours: Int) -> Int? {
        var sign = 1
        if take(UInt8(ascii: "-")) { sign = -1 } else { _ = take(UInt8(ascii: "+")) }
        guard let hours = number(), hours <= maxHours else { return nil }
        var seconds = hours * 3_600
        if take(UInt8(ascii: ":")) {
            guard let minutes = number(), minutes < 60 else { return nil }
            seconds += minutes * 60
            if take(UInt8(ascii: ":")) {
                guard let more = number(), more < 60 else { return nil }
                seconds += more
            }
        }
        return sign * seconds
    }

    /// `Jn`, `n` or `Mm.w.d`.
    mutating func day() -> RecurringRule.Day? {
        if take(UInt8(ascii: "J")) {
            guard let n = number(), (1...365).contains(n) else { return nil }
            return .julian(n)
        }
        if take(UInt8(ascii: "M")) {
            guard let month = number(), (1...12).contains(month), take(UInt8(ascii: ".")),
                  let week = number(), (1...5).contains(week), take(UInt8(ascii: ".")),
                  let day = number(), (0...6).contains(day) else { return nil }
            return .weekday(month: month, week: week, day: day)
        }
        guard let n = number(), (0...365).contains(n) else { return nil }
        return .zeroBased(n)
    }

    private mutating func number() -> Int? {
        let start = at
        var value = 0
        while let byte = peek, (0x30...0x39).contains(byte), at - start < 4 {
            value = value * 10 + Int(byte - 0x30)
            at += 1
        }
        return at > start ? value : nil
    }
}
