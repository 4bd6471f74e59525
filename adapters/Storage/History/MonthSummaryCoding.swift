import Domain
import FoundationEssentials

/// The bytes of `FileHistorySummaryStore`'s file: binary, little-endian,
/// since a report reads every number of it (100,000 sessions' stretches and
/// ids) and text would cost what the summaries save.
///
/// `retime.summaries\n`, the version (u32), the count of months (u32), then
/// per month: its key and version (u32 length, UTF-8), its first and last
/// start (u8 flag, two f64), the first day (i64) and the day starts (u32
/// count, f64 each), the days (u32 count; day i64, focused f64, sessions,
/// completed, stopped, rounds i64 each), the stretches (u32 count, two f64
/// each) and the fingerprints (u32 count, u64 each); then the months that
/// share a session (u32 count, keys); last, a checksum (u64) of every byte
/// before it. Instants are `Date`'s own f64, so they read
/// back to the bit. Anything else is no summaries.
enum MonthSummaryCoding {
    static let magic = Array("retime.summaries\n".utf8)
    /// 1: the first.
    static let version: UInt32 = 1

    static func encode(_ summaries: HistorySummaries) -> [UInt8] {
        var out = Writer()
        out.bytes += magic
        out.u32(version)
        out.u32(UInt32(summaries.months.count))
        for (key, summary) in summaries.months.sorted(by: { $0.key < $1.key }) {
            out.text(key)
            out.text(summary.version)
            if let starts = summary.starts {
                out.bytes.append(1)
                out.date(starts.lowerBound)
                out.date(starts.upperBound)
            } else {
                out.bytes.append(0)
            }
            out.u64(UInt64(bitPattern: summary.firstDay))
            out.u32(UInt32(summary.dayStarts.count))
            for start in summary.dayStarts { out.date(start) }
            out.u32(UInt32(summary.days.count))
            for day in summary.days {
                out.u64(UInt64(bitPattern: day.day))
                out.u64(day.focusedSeconds.bitPattern)
                for count in [day.sessions, day.completed, day.stopped, day.rounds] { out.u64(UInt64(bitPattern: Int64(count))) }
            }
            out.u32(UInt32(summary.stretches.count))
            for stretch in summary.stretches {
                out.date(stretch.start)
                out.date(stretch.end)
            }
            out.u32(UInt32(summary.fingerprints.count))
            for fingerprint in summary.fingerprints { out.u64(fingerprint) }
        }
        out.u32(UInt32(summaries.sharing.count))
        for key in summaries.sharing.sorted() { out.text(key) }
        let sum = out.bytes.withUnsafeBytes { checksum($0) }
        out.u64(sum)
        return out.bytes
    }

    /// The summaries `bytes` hold, or nil unless they are whole and of this version.
    static func decode(_ bytes: [UInt8]) -> HistorySummaries? {
        bytes.withUnsafeBytes { raw -> HistorySummaries? in
            guard raw.count >= magic.count + 16, raw.starts(with: magic) else { return nil }
            let body = UnsafeRawBufferPointer(rebasing: raw[..<(raw.count - 8)])
            guard raw.loadUnaligned(fromByteOffset: raw.count - 8, as: UInt64.self).littleEndian == checksum(body) else { return nil }
            var reader = Reader(bytes: body, offset: magic.count)
            guard reader.u32() == version, let count = reader.u32() else { return nil }
            var months: [String: MonthSummary] = [:]
            for _ in 0..<count {
                guard let (key, summary) = month(&reader) else { return nil }
                months[key] = summary
            }
            guard let sharing = reader.list(4, { $0.text() }), reader.offset == body.count else { return nil }
            return HistorySummaries(months: months, sharing: Set(sharing))
        }
    }

    private static func month(_ reader: inout Reader) -> (String, MonthSummary)? {
        guard let key = reader.text(), let version = reader.text(), let flag = reader.u8() else { return nil }
        var starts: ClosedRange<Date>?
        if flag == 1 {
            guard let first = reader.date(), let last = reader.date(), first <= last else { return nil }
            starts = first...last
        } else if flag != 0 {
            return nil
        }
        guard let firstDay = reader.u64().map(Int64.init(bitPattern:)), let dayStarts = reader.list(8, { $0.date() }),
              let days = reader.list(48, { reader -> MonthSummary.Day? in
                  guard let day = reader.u64(), let focused = reader.u64(), let sessions = reader.count(), let completed = reader.count(),
                        let stopped = reader.count(), let rounds = reader.count() else { return nil }
                  return MonthSummary.Day(day: Int64(bitPattern: day), focusedSeconds: Double(bitPattern: focused), sessions: sessions,
                                          completed: completed, stopped: stopped, rounds: rounds)
              }),
              let stretches = reader.list(16, { reader -> MonthSummary.Stretch? in
                  guard let start = reader.date(), let end = reader.date() else { return nil }
                  return MonthSummary.Stretch(start: start, end: end)
              }),
              let fingerprints = reader.list(8, { $0.u64() }) else { return nil }
        // What the report's searches rely on: days, stretches and ids in order.
        guard zip(days, days.dropFirst()).allSatisfy({ $0.day < $1.day }),
              zip(stretches, stretches.dropFirst()).allSatisfy({ $0.end < $1.start }), stretches.allSatisfy({ $0.start <= $0.end }),
              zip(fingerprints, fingerprints.dropFirst()).allSatisfy({ $0 < $1 }) else { return nil }
        return (key, MonthSummary(version: version, starts: starts, firstDay: firstDay, dayStarts: dayStarts, days: days,
                                  stretches: stretches, fingerprints: fingerprints))
    }

    /// A 64-bit checksum, eight bytes at a step: damage, not an adversary,
    /// is what it looks for, and it reads megabytes per report.
    static func checksum(_ bytes: UnsafeRawBufferPointer) -> UInt64 {
        var hash: UInt64 = 0x243F_6A88_85A3_08D3 ^ UInt64(bytes.count)
        var offset = 0
        while offset + 8 <= bytes.count {
            hash = (hash ^ bytes.loadUnaligned(fromByteOffset: offset, as: UInt64.self).littleEndian) &* 0x9E37_79B9_7F4A_7C15
            hash ^= hash >> 29
            offset += 8
        }
        while offset < bytes.count {
            hash = (hash ^ UInt64(bytes[offset])) &* 0x100_0000_01B3
            offset += 1
        }
        return hash ^ (hash >> 31)
    }

    private struct Writer {
        var bytes: [UInt8] = []

        mutating func u32(_ value: UInt32) { withUnsafeBytes(of: value.littleEndian) { bytes += $0 } }
        mutating func u64(_ value: UInt64) { withUnsafeBytes(of: value.littleEndian) { bytes += $0 } }
        mutating func date(_ date: Date) { u64(date.timeIntervalSinceReferenceDate.bitPattern) }
        mutating func text(_ text: String) {
            u32(UInt32(text.utf8.count))
            bytes += text.utf8
        }
    }

    private struct Reader {
        let bytes: UnsafeRawBufferPointer
        var offset: Int

        mutating func u8() -> UInt8? {
            guard offset < bytes.count else { return nil }
            defer { offset += 1 }
            return bytes[offset]
        }

        mutating func u32() -> UInt32? {
            guard bytes.count - offset >= 4 else { return nil }
            defer { offset += 4 }
            return bytes.loadUnaligned(fromByteOffset: offset, as: UInt32.self).littleEndian
        }

        mutating func u64() -> UInt64? {
            guard bytes.count - offset >= 8 else { return nil }
            defer { offset += 8 }
            return bytes.loadUnaligned(fromByteOffset: offset, as: UInt64.self).littleEndian
        }

        mutating func date() -> Date? {
            guard let bits = u64() else { return nil }
            let seconds = Double(bitPattern: bits)
            return seconds.isFinite ? Date(timeIntervalSinceReferenceDate: seconds) : nil
        }

        /// A count stored as i64: never negative.
        mutating func count() -> Int? {
            guard let bits = u64(), let value = Int(exactly: Int64(bitPattern: bits)), value >= 0 else { return nil }
            return value
        }

        mutating func text() -> String? {
            guard let length = u32().map(Int.init), bytes.count - offset >= length else { return nil }
            defer { offset += length }
            return String(validating: UnsafeRawBufferPointer(rebasing: bytes[offset..<offset + length]), as: UTF8.self)
        }

        /// A list of u32 count elements of `size` bytes each, the count
        /// checked against what is left before anything is reserved.
        mutating func list<T>(_ size: Int, _ element: (inout Reader) -> T?) -> [T]? {
            guard let count = u32().map(Int.init), (bytes.count - offset) / size >= count else { return nil }
            var values: [T] = []
            values.reserveCapacity(count)
            for _ in 0..<count {
                guard let value = element(&self) else { return nil }
                values.append(value)
            }
            return values
        }
    }
}
