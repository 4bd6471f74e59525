#if os(Linux)
@testable import Adapters
import Domain
import Foundation
import PortContracts
import Synchronization
import Testing

/// The desktop's own idle time (GNOME's idle monitor on the session bus)
/// beside logind, whose session here never says idle: the presence source
/// goes idle when the monitor says input stopped, dated from then, and
/// present at the next input.
@Suite("PresenceSignals: the desktop's idle monitor", .serialized, .enabled(if: PrivateBus.installed))
struct MutterIdleTests {
    func within(_ seconds: Double, _ condition: () -> Bool) async -> Bool { await FollowedPresence.within(seconds, condition) }

    @Test("the monitor's idle watch makes it idle from when input stopped; the user-active watch, present again")
    func idleAndBack() async throws {
        let desktop = try TestDesktop()
        defer { desktop.stop() }
        let monitor = try #require(desktop.monitor)
        let signals = LogindPresenceSignals(environment: desktop.environment, uid: 0)
        // doctor's words name both.
        let availability = await signals.availability()
        guard case .available(let source) = availability else { Issue.record("\(availability)"); return }
        #expect(source.hasPrefix("logind (session ") && source.hasSuffix(" and GNOME's idle monitor (org.gnome.Mutter.IdleMonitor on the session bus)"), "\(source)")
        let seen = FollowedPresence(signals)
        defer { seen.cancel() }
        // Its own GetIdletime and the follower's, which comes after its watch.
        #expect(await within(promptlyHere) { seen.all.first?.state == .present && monitor.calls.filter { $0 == "GetIdletime" }.count == 2 },
                "\(seen.all)")
        let fired = Date()
        monitor.fire(MutterIdleStandIn.idleWatch)
        #expect(await within(promptlyHere) { seen.all.last?.state == .idle }, "\(seen.all)")
        let heard = Date()
        let since = try #require(seen.all.last?.since)
        // Between the firing and its hearing, less the watch's 30 s (the
        // bounds are measured, not guessed: a loaded machine is slow).
        #expect(since >= fired.addingTimeInterval(-30.5) && since <= heard.addingTimeInterval(-29.5),
                "dated from when input stopped, 30 s before the watch fired: \(since), fired \(fired)")
        #expect(await within(promptlyHere) { monitor.calls.contains("AddUserActiveWatch") }, "it waits for the return: \(monitor.calls)")
        monitor.fire(MutterIdleStandIn.activeWatch)
        #expect(await within(promptlyHere) { seen.all.last?.state == .present }, "\(seen.all)")
        #expect(seen.all.map(\.state) == [.present, .idle, .present], "no extra change: \(seen.all)")
    }

    @Test("a monitor that appears after the bus was reached (gnome-shell starts after the user's bus) is followed; one that goes drops its word")
    func monitorAppearsLater() async throws {
        let desktop = try TestDesktop(monitor: false)
        defer { desktop.stop() }
        let seen = FollowedPresence(LogindPresenceSignals(environment: desktop.environment, uid: 0))
        defer { seen.cancel() }
        #expect(await within(promptlyHere) { seen.all.first?.state == .present }, "\(seen.all)")
        let monitor = try desktop.startMonitor()
        #expect(await within(promptlyHere) { monitor.calls.contains("GetIdletime") }, "the new monitor is asked for its watch: \(monitor.calls)")
        monitor.fire(MutterIdleStandIn.idleWatch)
        #expect(await within(promptlyHere) { seen.all.last?.state == .idle }, "\(seen.all)")
        monitor.stop()
        #expect(await within(promptlyHere) { seen.all.last?.state == .present }, "gnome-shell gone, its idle goes with it: \(seen.all)")
    }

    @Test("idle already when followed: the first state is idle, from the monitor's idle time")
    func idleAtFirst() async throws {
        let desktop = try TestDesktop(idleTime: 120_000)
        defer { desktop.stop() }
        let asked = Date()
        let seen = FollowedPresence(LogindPresenceSignals(environment: desktop.environment, uid: 0))
        defer { seen.cancel() }
        #expect(await within(promptlyHere) { seen.all.last?.state == .idle }, "\(seen.all)")
        let heard = Date()
        let since = try #require(seen.all.last?.since)
        #expect(since >= asked.addingTimeInterval(-120.5) && since <= heard.addingTimeInterval(-119.5), "two minutes without input: \(since)")
    }

    /// A bound on lost, not on slow: in the whole parallel suite a task can
    /// wait many seconds for a thread of the cooperative pool (the backoff's
    /// retries and the follower's task run there).
    let promptlyHere: Double = 60
}
#endif
