import Adapters
import Domain
import Foundation
import JSONDocument

// Storage benchmarks, run by bench/store.sh on a release build:
//   - set + durable write of one key, and read of one key (median, p99);
//   - appending one session with 0, 10,000 and 100,000 sessions in history;
//   - reading all of 100,000 sessions.
// Everything happens in a temporary directory, removed at the end.

let root = FileManager.default.temporaryDirectory.appendingPathComponent("retime-bench-\(UUID().uuidString)").path
defer { try? FileManager.default.removeItem(atPath: root) }

func seconds(_ body: () throws -> Void) rethrows -> Double {
    let start = DispatchTime.now().uptimeNanoseconds
    try body()
    return Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9
}

func blocking<T: Sendable>(_ body: @escaping @Sendable () async throws -> T) throws -> T {
    let box = ResultBox<T>()
    let done = DispatchSemaphore(value: 0)
    Task {
        do { box.result = .success(try await body()) } catch { box.result = .failure(error) }
        done.signal()
    }
    done.wait()
    return try box.result!.get()
}

final class ResultBox<T>: @unchecked Sendable { var result: Result<T, any Error>? }

func percentile(_ values: [Double], _ p: Double) -> Double {
    let sorted = values.sorted()
    return sorted[min(sorted.count - 1, Int(Double(sorted.count) * p))]
}

func ms(_ value: Double) -> String { String(format: "%.3f ms", value * 1_000) }

// History: generate N past sessions (one every 30 minutes up to now) straight
// into a device's segments, then time single appends on top.
func generate(_ count: Int, into directory: String) throws {
    let folder = directory + "/generated-device"
    try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
    var segments: [String: [UInt8]] = [:]
    let end = Date().addingTimeInterval(-3_600)
    let groups = (0..<8).map { _ in GroupID() }   // a user has a handful of groups
    for index in 0..<count {
        let start = end.addingTimeInterval(-Double(count - index) * 1_800)
        let session = Session(groupId: groups[index % groups.count], startedAt: start, plannedEnd: start + 1_500, tags: ["bench"])
            .ending(at: start + 1_500, outcome: index % 5 == 0 ? .stopped : .completed)
        let month = String(Timestamp.format(start, fractionDigits: 0).prefix(7))
        segments[month, default: []] += try JSONTextWriter.write(JSONValueCoding.encode(session), layout: .compact) + [10]
    }
    for (month, bytes) in segments {
        let path = "\(folder)/\(month).jsonl"
        guard FileManager.default.createFile(atPath: path, contents: Data(bytes)) else {
            throw CocoaError(.fileWriteUnknown, userInfo: [NSFilePathErrorKey: path])
        }
    }
}

// `StoreBenchmark profile-read N`: only generate N sessions and read them
// back repeatedly, for a profiler to look at the read path alone.
if CommandLine.arguments.count == 3, CommandLine.arguments[1] == "profile-read", let count = Int(CommandLine.arguments[2]) {
    try generate(count, into: root + "/profile")
    let history = JSONLinesSessionHistory(directory: root + "/profile", deviceID: "d",
                                          logger: Logger(label: "bench", handler: InMemoryLogHandler(logLevel: .critical)))
    for _ in 0..<10 { print(ms(try seconds { _ = try blocking { try await history.sessions(matching: .all) } })) }
    exit(0)
}

// `StoreBenchmark generate-history N DIR`: fills DIR with N past sessions,
// for bench/cli.sh.
if CommandLine.arguments.count == 4, CommandLine.arguments[1] == "generate-history", let count = Int(CommandLine.arguments[2]) {
    try generate(count, into: CommandLine.arguments[3])
    exit(0)
}

// `StoreBenchmark generate-scale DATA_DIR`: a heavy user's data for
// bench/scale.sh: 1,000 groups (one, `big`, of 10,000 targets), 1,000
// schedules, 100,000 past sessions.
if CommandLine.arguments.count == 3, CommandLine.arguments[1] == "generate-scale" {
    let data = CommandLine.arguments[2]
    let store = JSONFileStore(directory: data + "/store")
    let now = Date()
    var groups = (0..<999).map { index in
        Group(name: try! GroupName("group \(index)"), targets: [try! Target(parsing: "site\(index).example")], createdAt: now)
    }
    let big = (0..<10_000).map { try! Target(parsing: "s\($0).big.example") }
    groups.append(Group(name: try GroupName("big"), targets: big, createdAt: now))
    let all = groups
    _ = try blocking { try await StoreGroupRepository(store: store).insert(contentsOf: all) }
    let schedules = StoreScheduleRepository(store: store)
    for index in 0..<1_000 {
        let schedule = Schedule(name: "schedule \(index)", groupId: groups[index % groups.count].id,
                                from: TimeOfDay(parsing: String(format: "%02d:%02d", index % 24, index % 60))!,
                                to: TimeOfDay(parsing: String(format: "%02d:%02d", (index + 1) % 24, index % 60))!,
                                weekdays: Weekday.weekdays, enabled: index % 2 == 0)
        try blocking { try await schedules.insert(schedule) }
    }
    try generate(100_000, into: data + "/history")
    exit(0)
}

// Key-value store.
let store = JSONFileStore(directory: root + "/store")
try store.set("seed", forKey: "k", in: "config")
let writes = try (0..<300).map { i in try seconds { try store.set("value \(i)", forKey: "k", in: "config") } }
let reads = try (0..<2_000).map { _ in try seconds { _ = try store.value(String.self, forKey: "k", in: "config") } }
print("| set + durable write of one key | \(ms(percentile(writes, 0.5))) | \(ms(percentile(writes, 0.99))) |")
print("| read of one key | \(ms(percentile(reads, 0.5))) | \(ms(percentile(reads, 0.99))) |")

let logger = Logger(label: "bench", handler: InMemoryLogHandler(logLevel: .critical))
var appendMedians: [Int: Double] = [:]
for count in [0, 10_000, 100_000] {
    let directory = root + "/history-\(count)"
    try generate(count, into: directory)
    let history = JSONLinesSessionHistory(directory: directory, deviceID: "this-device", logger: logger)
    let times = try (0..<200).map { i -> Double in
        let start = Date().addingTimeInterval(Double(i))
        let session = Session(groupId: GroupID(), startedAt: start, plannedEnd: nil).ending(at: start + 60, outcome: .stopped)
        return try seconds { try blocking { try await history.append(session) } }
    }
    appendMedians[count] = percentile(times, 0.5)
    print("| append one session, \(count) in history | \(ms(percentile(times, 0.5))) | \(ms(percentile(times, 0.99))) |")
    if count == 100_000 {
        var sessions = 0
        let reads = try (0..<5).map { _ in try seconds { sessions = try blocking { try await history.sessions(matching: .all) }.count } }
        print("| read all \(sessions) sessions | \(ms(percentile(reads, 0.5))) | \(ms(reads.max()!)) (max of 5) |")
        let limited = try (0..<50).map { _ in try seconds { _ = try blocking { try await history.sessions(matching: .init(limit: 20)) } } }
        print("| read the newest 20 of 100,000 | \(ms(percentile(limited, 0.5))) | \(ms(percentile(limited, 0.99))) |")
    }
}
print("")
print("append at 100,000 / append at 0: \(String(format: "%.2f", appendMedians[100_000]! / appendMedians[0]!))x")
