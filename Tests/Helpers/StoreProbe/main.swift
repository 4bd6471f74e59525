import Adapters
import Domain
import Foundation
import JSONDocument

// A helper process for the multi-process storage tests: each command works
// on a real data directory the way a retime process would.
//
//   StoreProbe increment STORE_DIR N        N read-modify-write increments of counter/n
//   StoreProbe increment-shared DEVICES_DIR DEVICE N   the same in a shared folder's log store, as DEVICE
//   StoreProbe increment-commands DEVICES_DIR DEVICE N the same, each increment a command of its own (a
//                                            fresh store that reads first, then writes, then tears down)
//   StoreProbe migrate DATA_DIR DEVICE       opens a data folder (migrating it) and reads its shared suites
//   StoreProbe write-loop STORE_DIR         rewrites blob/value forever with generation k
//   StoreProbe append-loop HISTORY_DIR DEV  appends sessions forever
//
// It prints "ready" once it has started working, so a test knows when to
// send a signal.

func fail(_ message: String) -> Never {
    FileHandle.standardError.write(Data("StoreProbe: \(message)\n".utf8))
    exit(2)
}

/// The payload of write generation `k`: large enough that writing it takes
/// a while, and checkable from its first byte to its last.
func payload(_ k: Int) -> JSONValue {
    .object(["k": .int(Int64(k)), "fill": .string(String(repeating: Character(Unicode.Scalar(UInt8(97 + k % 26))), count: 60_000))])
}

/// `times` read-modify-write increments of counter/n.
func increment(_ store: any KeyValueStore, times: Int) {
    for _ in 0..<times {
        do {
            try store.update("counter") { values in
                guard case .int(let n) = values["n"] ?? .int(0) else { fail("counter is not an int") }
                values["n"] = .int(n + 1)
            }
        } catch { fail("\(error)") }
    }
}

let arguments = CommandLine.arguments
guard arguments.count >= 3 else { fail("usage: see the source") }
switch arguments[1] {
case "increment":
    increment(JSONFileStore(directory: arguments[2], lockTimeout: 30), times: Int(arguments[3]) ?? 0)
case "increment-shared":
    increment(ReplicatedLogStore.dataFolder(devices: arguments[2], deviceID: { arguments[3] }, now: { Date() }, lockTimeout: 30),
              times: Int(arguments[4]) ?? 0)
case "increment-commands":
    for _ in 0..<(Int(arguments[4]) ?? 0) {
        let store = ReplicatedLogStore.dataFolder(devices: arguments[2], deviceID: { arguments[3] }, now: { Date() }, lockTimeout: 30)
        do { _ = try store.values(of: "counter") } catch { fail("\(error)") }
        increment(store, times: 1)
        store.forgetParsedSuites()
    }
case "migrate":
    let store = DataFolderStore.open(root: arguments[2], deviceID: { arguments[3] }, now: { Date() })
    FileHandle.standardOutput.write(Data("ready\n".utf8))
    do {
        for suite in DataFolderStore.sharedSuites { _ = try store.values(of: suite) }
    } catch { fail("\(error)") }
case "write-loop":
    let store = JSONFileStore(directory: arguments[2], backupCount: 0)
    var k = (try? store.values(of: "blob"))?["value"].flatMap { value -> Int? in
        if case .object(let o) = value, case .int(let k)? = o["k"] { return Int(k) }
        return nil
    } ?? 0
    FileHandle.standardOutput.write(Data("ready\n".utf8))
    while true {
        k += 1
        do { try store.update("blob") { $0["value"] = payload(k) } } catch { fail("\(error)") }
    }
case "append-loop":
    let history = JSONLinesSessionHistory(directory: arguments[2], deviceID: arguments[3],
                                          logger: Logger(label: "probe", handler: InMemoryLogHandler()))
    FileHandle.standardOutput.write(Data("ready\n".utf8))
    var start = Date(timeIntervalSince1970: 1_800_000_000)
    while true {
        start += 1_000
        let session = Session(groupId: GroupID(), startedAt: start, plannedEnd: start + 600, tags: ["t"],
                              note: String(repeating: "n", count: 2_000))
            .ending(at: start + 600, outcome: .completed)
        let done = DispatchSemaphore(value: 0)
        Task { try await history.append(session); done.signal() }
        done.wait()
    }
default:
    fail("unknown command \(arguments[1])")
}
