#if os(Linux)
import Adapters
import Foundation
import PortContracts
import Synchronization
import Testing

/// The daemon's D-Bus name on a session bus of the test's own (never the
/// machine's): every change of state reaches PropertiesChanged at once,
/// the methods start and stop sessions with the commands' rules, and with
/// no session bus the daemon runs as before.
@Suite("the daemon's D-Bus name end to end", .serialized, .enabled(if: PrivateBus.installed))
struct DesktopBusEndToEndTests {
    /// The brief's bound from a command's exit to the signal. The daemon
    /// hears the data folder's inotify event and reads the session: a
    /// few ms (bench/dbus.sh, docs/performance.md).
    static let signalBound: TimeInterval = 0.1

    /// A client of the bus that records every PropertiesChanged of retime's object as it arrives.
    final class Client: Sendable {
        struct Change: Sendable {
            let names: [String]
            let values: [String: Bool]
            let texts: [String: String]
            let at: Date
        }

        let connection: BusConnection
        private let changes = ChangeLog()

        final class ChangeLog: Sendable {
            let value = Mutex<[Change]>([])
            func withLock<T>(_ body: (inout [Change]) -> T) -> T { value.withLock { body(&$0) } }
        }

        init(address: String) throws {
            connection = try BusConnection(.session, environment: ["DBUS_SESSION_BUS_ADDRESS": address])
            let changes = changes
            try connection.sync { [connection] () throws(BusError) in
                try connection.matchSignal(sender: nil, path: "/dev/retime/Retime1", interface: "org.freedesktop.DBus.Properties",
                                           member: "PropertiesChanged") { message in
                    let at = Date()
                    guard message.readString() == "dev.retime.Retime1", message.enter("a", "{sv}") else { return }
                    var names: [String] = [], values: [String: Bool] = [:], texts: [String: String] = [:]
                    while message.enter("e", "sv") {
                        let name = message.readString() ?? ""
                        names.append(name)
                        if let (type, contents) = message.peek(), type == "v", message.enter("v", contents) {
                            switch contents {
                            case "b": values[name] = message.readBool()
                            case "s": texts[name] = message.readString()
                            default: message.skip()
                            }
                            message.exit()
                        }
                        message.exit()
                    }
                    message.exit()
                    changes.withLock { $0.append(Change(names: names, values: values, texts: texts, at: at)) }
                }
            }
        }

        var all: [Change] { changes.withLock { $0 } }

        /// The first change after the `after`th that sets `property` to `value`.
        func change(after count: Int, setting property: String, to value: Bool, within seconds: TimeInterval = promptly) -> Change? {
            _ = eventually(within: seconds) { all.dropFirst(count).contains { $0.values[property] == value } }
            return all.dropFirst(count).first { $0.values[property] == value }
        }

        /// Calls a method of retime's object; the D-Bus error's name and message if it fails.
        func call(_ method: String, group: String? = nil, seconds: UInt32 = 0) -> String? {
            let connection = connection
            do {
                try connection.sync { () throws(BusError) in
                    try connection.call(destination: "dev.retime.Retime1", path: "/dev/retime/Retime1", interface: "dev.retime.Retime1",
                                        member: method, arguments: { message in
                                            if let group { message.append(group); message.append(seconds) }
                                        }) { _ in () }
                }
                return nil
            } catch {
                return error.description
            }
        }

        /// Whether the name has an owner that answers (the daemon is up).
        var answers: Bool {
            let connection = connection
            return (try? connection.sync { () throws(BusError) -> Bool in
                try connection.property(destination: "dev.retime.Retime1", path: "/dev/retime/Retime1", interface: "dev.retime.Retime1",
                                        name: "Active", type: "b") { $0.readBool() }
            }) != nil
        }

        func close() { connection.close() }
    }

    func stop(_ daemon: RetimeProcess.Running, _ retime: RetimeProcess) throws -> RetimeProcess.Outcome {
        kill(daemon.process.processIdentifier, SIGTERM)
        return try retime.finish(daemon)
    }

    @Test("start, pause, resume and stop each reach PropertiesChanged within 100 ms of the command")
    func everyChangeSignalled() throws {
        let bus = try PrivateBus()
        defer { bus.stop() }
        let retime = RetimeProcess().onSessionBus(bus.address)
        try retime.run("group", "create", "focus")
        let daemon = try retime.startDaemon()
        let client = try Client(address: bus.address)
        defer { client.close() }
        #expect(eventually(within: 15) { client.answers }, "the daemon owns dev.retime.Retime1")
        let steps: [(command: [String], property: String, value: Bool)] = [
            (["start", "--for", "25m"], "Active", true), (["pause"], "Paused", true),
            (["resume"], "Paused", false), (["stop"], "Active", false),
        ]
        for step in steps {
            let before = client.all.count
            #expect(try retime.run(step.command).status == 0)
            let exited = Date()
            let change = try #require(client.change(after: before, setting: step.property, to: step.value),
                                      "\(step.command): no PropertiesChanged with \(step.property)=\(step.value): \(client.all.map(\.values))")
            let late = change.at.timeIntervalSince(exited)
            #expect(late <= Self.signalBound, "\(step.command): the signal came \(Int(late * 1000)) ms after the command")
        }
        // Start says what a bar shows: the group, its phase, its end.
        let started = client.all.first { $0.values["Active"] == true }
        let names = Set(started?.names ?? [])
        #expect(names.isSuperset(of: ["Active", "Group", "Phase", "EndsAt", "Remaining"]), "\(names)")
        let outcome = try stop(daemon, retime)
        #expect(outcome.status == 0, "the daemon stopped cleanly: \(outcome.err)")
    }

    @Test("Start and Stop run sessions; a strict session's Stop is refused with dev.retime.Retime1.Error.Strict")
    func methods() throws {
        let bus = try PrivateBus()
        defer { bus.stop() }
        let retime = RetimeProcess().onSessionBus(bus.address)
        let daemon = try retime.startDaemon()
        defer { _ = try? stop(daemon, retime) }
        let client = try Client(address: bus.address)
        defer { client.close() }
        #expect(eventually(within: 15) { client.answers })
        // The default group, created on first use as `retime start` does.
        #expect(client.call("Start", group: "", seconds: 1500) == nil)
        let status = try retime.run("status", "--json").json
        #expect(status["active"] as? Bool == true, "\(status)")
        #expect(client.call("Stop") == nil)
        #expect(try retime.run("status", "--json").json["active"] as? Bool == false)
        #expect(try retime.loggedSessions().count == 1, "stopped, so history keeps it")
        // A group that does not exist: the command's error, by its code.
        #expect(client.call("Start", group: "nosuch", seconds: 60)?.contains("dev.retime.Retime1.Error.GroupNotFound") == true)
        #expect(try retime.run("start", "--for", "5m", "--strict").status == 0)
        let refused = client.call("Stop")
        #expect(refused?.contains("dev.retime.Retime1.Error.Strict") == true, "\(refused ?? "accepted")")
        #expect(try retime.run("status", "--json").json["active"] as? Bool == true, "the strict session goes on")
        #expect(client.call("Pause")?.contains("dev.retime.Retime1.Error.") == true, "a strict session is not paused either")
    }

    @Test("a cycle's phase edges and its end reach PropertiesChanged with no command run")
    func phaseEdges() throws {
        let bus = try PrivateBus()
        defer { bus.stop() }
        let retime = RetimeProcess().onSessionBus(bus.address)
        try retime.run("group", "create", "work")
        let daemon = try retime.startDaemon()
        defer { _ = try? stop(daemon, retime) }
        let client = try Client(address: bus.address)
        defer { client.close() }
        #expect(eventually(within: 15) { client.answers })
        #expect(try retime.run("start", "work", "--cycle", "2s/2s", "--rounds", "2").status == 0)
        let started = Date()
        // work 2 s, break 2 s, work 2 s: the break begins at 2 s, the session ends at 6 s.
        #expect(eventually(within: 2 + promptly) { client.all.contains { $0.texts["Phase"] == "break" } }, "\(client.all.map(\.texts))")
        let brokeAt = client.all.first { $0.texts["Phase"] == "break" }?.at ?? .distantFuture
        #expect(brokeAt.timeIntervalSince(started) >= 1.9, "not before the edge")
        #expect(eventually(within: 4 + promptly) { client.all.contains { $0.values["Active"] == false } }, "the end, signalled")
    }

    @Test("doctor says whether the session bus and logind are here, who owns the name, and why not")
    func doctor() throws {
        let plain = RetimeProcess()
        #expect(try plain.doctorFinding("session bus")?["detail"] as? String ?? "" == "none here ($DBUS_SESSION_BUS_ADDRESS unset, no $XDG_RUNTIME_DIR/bus): no D-Bus name; 'status --follow' still serves a bar")
        let away = try plain.doctorFinding("away time")?["detail"] as? String ?? ""
        #expect(away.hasPrefix("idle and lock are not followed: the system bus cannot be reached"), "\(away)")
        let bus = try PrivateBus()
        defer { bus.stop() }
        let retime = RetimeProcess().onSessionBus(bus.address)
        #expect(try retime.doctorFinding("session bus")?["status"] as? String == "warning", "a bus, but no daemon on it")
        let daemon = try retime.startDaemon()
        defer { _ = try? stop(daemon, retime) }
        #expect(eventually(within: 15) { (try? retime.doctorFinding("session bus")?["detail"] as? String) == "the daemon owns dev.retime.Retime1" })
    }

    @Test("with no session bus the daemon says so once and runs as before")
    func noSessionBus() throws {
        let retime = RetimeProcess()
        let daemon = try retime.startDaemon()
        try retime.run("start", "--for", "2s")
        #expect(eventually(within: 10) { (try? retime.loggedSessions().count) == 1 }, "the daemon completed the session")
        let outcome = try stop(daemon, retime)
        #expect(outcome.status == 0, "\(outcome.err)")
        let log = (try? String(contentsOfFile: retime.deviceFile("logs/daemon.log"), encoding: .utf8)) ?? ""
        #expect(log.components(separatedBy: "no session bus").count == 2, "one line: \(log)")
    }
}
#endif
