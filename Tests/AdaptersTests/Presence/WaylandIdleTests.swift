#if os(Linux)
@testable import Adapters
import Domain
import Foundation
import PortContracts
import Synchronization
import Testing

/// The compositor's own idle time against real compositors started headless
/// by the test (never the machine's display): sway 1.7, which offers KDE's
/// `org_kde_kwin_idle`, and KWin 5.27, the one compositor here that offers
/// `ext_idle_notifier_v1`. Input is real: a key on sway's virtual keyboard
/// (wtype); KWin 5.27 has no virtual keyboard and is told of activity the
/// way its own tools do (`HeadlessCompositor.press`). In CI a missing
/// compositor fails these tests rather than skip them.
@Suite("PresenceSignals: the Wayland compositor's idle time", .serialized)
struct WaylandIdleTests {
    static func within(_ seconds: Double, _ condition: () -> Bool) async -> Bool { await FollowedPresence.within(seconds, condition) }

    /// Generous: two cores shared with a whole suite; a bound on lost, not on slow.
    let promptlyHere: Double = 30

    @Test("sway 1.7: kwin idle says idle after the timeout, dated from the last input, and present at a key",
          .enabled(if: HeadlessCompositor.required(.sway)))
    func sway() async throws {
        try await idleAndBack(.sway, protocolNamed: "org_kde_kwin_idle")
    }

    @Test("KWin 5.27: ext-idle-notify says idle after the timeout, dated from the last input, and present at activity",
          .enabled(if: HeadlessCompositor.required(.kwin)))
    func kwin() async throws {
        try await idleAndBack(.kwin, protocolNamed: "ext_idle_notifier_v1")
    }

    func idleAndBack(_ kind: HeadlessCompositor.Kind, protocolNamed name: String) async throws {
        let compositor = try await HeadlessCompositor.start(kind)
        defer { compositor.stop() }
        let signals = WaylandIdlePresenceSignals(environment: compositor.environment, idleAfter: 1)
        let availability = await signals.availability()
        guard case .available(let source) = availability else { Issue.record("\(availability)"); return }
        #expect(source.contains(name) && source.contains(compositor.display), "\(source)")

        let seen = FollowedPresence(signals)
        defer { seen.cancel() }
        #expect(await Self.within(promptlyHere) { seen.all.first?.state == .present }, "\(seen.all)")
        // The last input: a key, then no more; the notification counts 1 s
        // from it. (An idle may come before it on a starved machine: the
        // idle looked for is the one dated from this key or later.)
        let pressed = Date()
        try await compositor.pressing()
        #expect(await Self.within(promptlyHere) { seen.all.last.map { $0.state == .idle && $0.since >= pressed.addingTimeInterval(-0.1) } ?? false },
                "\(seen.all) \(compositor.output)")
        let heard = Date()
        let since = try #require(seen.all.last?.since)
        // Input stopped at the key: 1 s before the compositor said idle
        // (between the key and its hearing, less the second; measured, not
        // guessed; 0.1 s for the timers' millisecond rounding).
        #expect(since >= pressed.addingTimeInterval(-0.1) && since <= heard.addingTimeInterval(-1), "since \(since), key \(pressed), heard \(heard)")

        let idled = seen.all.count
        try await compositor.pressing()
        #expect(await Self.within(promptlyHere) { seen.all.count > idled && seen.all[idled].state == .present }, "\(seen.all)")
        // Still followed after the return: idle again after the next second without input.
        #expect(await Self.within(promptlyHere) { seen.all.count > idled + 1 && seen.all.last?.state == .idle }, "\(seen.all)")
        // Told once per change: never the same state twice in a row.
        let states = seen.all.map(\.state)
        #expect(zip(states, states.dropFirst()).allSatisfy { $0 != $1 }, "no repeated state: \(seen.all)")
    }

    @Test("the compositor going away ends the changes, present again",
          .enabled(if: HeadlessCompositor.required(.sway)))
    func compositorGone() async throws {
        let compositor = try await HeadlessCompositor.start(.sway)
        defer { compositor.stop() }
        let seen = FollowedPresence(WaylandIdlePresenceSignals(environment: compositor.environment, idleAfter: 1))
        defer { seen.cancel() }
        #expect(await Self.within(promptlyHere) { seen.all.last?.state == .idle }, "\(seen.all)")
        compositor.stop()
        #expect(await Self.within(promptlyHere) { seen.ended }, "the stream ends on its own")
        #expect(seen.all.map(\.state) == [.present, .idle, .present], "\(seen.all)")
    }

    @Test("contract: sway (org_kde_kwin_idle)", .enabled(if: HeadlessCompositor.required(.sway)),
          arguments: PresenceSignalsContract.checks)
    func swayContract(_ check: ContractCheck<PresenceSignalsContract.Factory>) async throws {
        try await contract(check, on: .sway)
    }

    @Test("contract: KWin (ext_idle_notifier_v1)", .enabled(if: HeadlessCompositor.required(.kwin)),
          arguments: PresenceSignalsContract.checks)
    func kwinContract(_ check: ContractCheck<PresenceSignalsContract.Factory>) async throws {
        try await contract(check, on: .kwin)
    }

    /// The subject tells idle and present. `set(.idle)` presses a key (both
    /// timers start at once) and returns once a second client of the same
    /// compositor, with the same timeout, heard it say idle; `set(.present)`
    /// presses a key and, after an idle, waits until that client heard the return.
    func contract(_ check: ContractCheck<PresenceSignalsContract.Factory>, on kind: HeadlessCompositor.Kind) async throws {
        let compositor = try await HeadlessCompositor.start(kind)
        defer { compositor.stop() }
        let path = compositor.runtimeDirectory.appendingPathComponent(compositor.display).path
        let observer = try WaylandIdleConnection(path: path, timeout: 1_000)
        let observed = Mutex<Bool>(false)
        observer.start(report: { idle, _ in observed.withLock { $0 = idle } }, ended: {})
        defer { observer.stop() }
        try await check.run {
            PresenceSignalsContract.Subject(signals: WaylandIdlePresenceSignals(environment: compositor.environment, idleAfter: 1),
                                            tells: [.present, .idle], set: { state in
                try await compositor.pressing()
                let wanted = state == .idle
                guard await Self.within(120, { observed.withLock { $0 } == wanted }) else {
                    throw HeadlessCompositor.Failure("the observer never heard \(state): \(compositor.output)")
                }
            }, lose: { compositor.stop() })
        }
    }

    @Test("a compositor that offers neither idle protocol (weston 10): unavailable, and why",
          .enabled(if: HeadlessCompositor.required(.weston)))
    func neitherProtocol() async throws {
        let compositor = try await HeadlessCompositor.start(.weston)
        defer { compositor.stop() }
        let path = compositor.runtimeDirectory.appendingPathComponent(compositor.display).path
        try await PresenceSignalsContract.unavailableChecks[0].run { WaylandIdlePresenceSignals(environment: compositor.environment) }
        let availability = await WaylandIdlePresenceSignals(environment: compositor.environment).availability()
        #expect(availability == .unavailable(reason: "the compositor's idle time is not followed: the compositor at \(path) offers "
                                                 + "neither ext_idle_notifier_v1 nor org_kde_kwin_idle"))
    }

    @Test("no display, or no compositor at it: unavailable, and why")
    func unavailable() async throws {
        try await PresenceSignalsContract.unavailableChecks[0].run { WaylandIdlePresenceSignals(environment: [:]) }
        try await PresenceSignalsContract.unavailableChecks[0].run {
            WaylandIdlePresenceSignals(environment: ["XDG_RUNTIME_DIR": "/nonexistent", "WAYLAND_DISPLAY": "wayland-9"])
        }
        try await PresenceSignalsContract.unavailableChecks[0].run { WaylandIdlePresenceSignals(environment: ["XDG_RUNTIME_DIR": "/nonexistent"]) }
        let none = await WaylandIdlePresenceSignals(environment: [:]).availability()
        #expect(none == .unavailable(reason: "the compositor's idle time is not followed: no Wayland display "
                                         + "(WAYLAND_DISPLAY and XDG_RUNTIME_DIR are not set)"))
        let absent = await WaylandIdlePresenceSignals(environment: ["WAYLAND_DISPLAY": "/nonexistent/wayland-9"]).availability()
        #expect("\(absent)".contains("no compositor answers at /nonexistent/wayland-9"), "\(absent)")
    }

    @Test("no WAYLAND_DISPLAY (a daemon started with the login): the compositor in XDG_RUNTIME_DIR is found and followed",
          .enabled(if: HeadlessCompositor.required(.sway)))
    func foundInTheRuntimeFolder() async throws {
        let compositor = try await HeadlessCompositor.start(.sway)
        defer { compositor.stop() }
        let signals = WaylandIdlePresenceSignals(environment: ["XDG_RUNTIME_DIR": compositor.runtimeDirectory.path], idleAfter: 1)
        let path = compositor.runtimeDirectory.appendingPathComponent(compositor.display).path
        #expect(await signals.availability() == .available(source: "the compositor's kwin idle (org_kde_kwin_idle) on \(path)"))
        let seen = FollowedPresence(signals)
        defer { seen.cancel() }
        try await compositor.pressing()
        #expect(await Self.within(promptlyHere) { seen.all.last?.state == .idle }, "\(seen.all) \(compositor.output)")
    }

    @Test("a compositor that starts after the source (the desktop after the daemon) is waited for, present meanwhile, then followed; its end ends the changes",
          .enabled(if: HeadlessCompositor.required(.sway)))
    func compositorStartsLater() async throws {
        let folder = try HeadlessCompositor.runtimeFolder()
        // A crashed compositor's socket, bound and never listened on: not a compositor.
        try Self.deadSocket(at: folder.appendingPathComponent("wayland-7").path)
        let signals = WaylandIdlePresenceSignals(environment: ["XDG_RUNTIME_DIR": folder.path], idleAfter: 1)
        #expect(await signals.availability()
                == .available(source: "the compositor's idle time once a compositor starts at \(folder.path)/wayland-N (none answers yet)"))
        let seen = FollowedPresence(signals)
        defer { seen.cancel() }
        #expect(await Self.within(promptlyHere) { seen.all.map(\.state) == [.present] }, "present while no compositor is there: \(seen.all)")
        // Files of other programs in the folder are not a compositor, nor
        // is a plain file that has a compositor's name.
        FileManager.default.createFile(atPath: folder.appendingPathComponent("pipewire-0").path, contents: nil)
        FileManager.default.createFile(atPath: folder.appendingPathComponent("wayland-3").path, contents: Data("not a socket".utf8))
        let compositor = try await HeadlessCompositor.start(.sway, in: folder)
        defer { compositor.stop() }
        // Followed once it answers: idle 1 s after the last input.
        let pressed = Date()
        try await compositor.pressing()
        #expect(await Self.within(promptlyHere) { seen.all.last.map { $0.state == .idle && $0.since >= pressed.addingTimeInterval(-0.1) } ?? false },
                "\(seen.all) \(compositor.output)")
        #expect(!seen.ended)
        try await compositor.pressing()
        #expect(await Self.within(promptlyHere) { seen.all.last?.state == .present }, "\(seen.all)")
        compositor.stop()
        #expect(await Self.within(promptlyHere) { seen.ended }, "a compositor lost while followed ends the changes, as the port says")
    }

    @Test("a named display that starts later offering neither protocol (weston 10): the changes end, and a second look says why",
          .enabled(if: HeadlessCompositor.required(.weston)))
    func neitherProtocolLater() async throws {
        let folder = try HeadlessCompositor.runtimeFolder()
        // weston listens at the name it is given: the one the environment names.
        let environment = ["XDG_RUNTIME_DIR": folder.path, "WAYLAND_DISPLAY": "wayland-retime"]
        let signals = WaylandIdlePresenceSignals(environment: environment, idleAfter: 1)
        #expect(await signals.availability()
                == .available(source: "the compositor's idle time once a compositor starts at \(folder.path)/wayland-retime (none answers yet)"))
        let seen = FollowedPresence(signals)
        defer { seen.cancel() }
        #expect(await Self.within(promptlyHere) { seen.all.map(\.state) == [.present] }, "\(seen.all)")
        let compositor = try await HeadlessCompositor.start(.weston, in: folder)
        defer { compositor.stop() }
        #expect(await Self.within(promptlyHere) { seen.ended }, "found, not followed: ended as a lost compositor is")
        #expect(seen.all.map(\.state) == [.present])
        let again = await signals.availability()
        #expect(again == .unavailable(reason: "the compositor's idle time is not followed: the compositor at \(folder.path)/wayland-retime offers "
                                          + "neither ext_idle_notifier_v1 nor org_kde_kwin_idle"), "\(again)")
    }

    @Test("a wait for a compositor that never comes ends when the changes are no longer followed")
    func waitEnds() async throws {
        let folder = try HeadlessCompositor.runtimeFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let before = Self.openDescriptors()
        for _ in 0..<20 {
            let seen = FollowedPresence(WaylandIdlePresenceSignals(environment: ["XDG_RUNTIME_DIR": folder.path], idleAfter: 1))
            #expect(await Self.within(promptlyHere) { seen.all.map(\.state) == [.present] }, "\(seen.all)")
            seen.cancel()
            #expect(await Self.within(promptlyHere) { seen.ended })
        }
        // Each wait closes its watch and its pipe on its way out.
        #expect(await Self.within(promptlyHere) { Self.openDescriptors() <= before + 2 }, "\(Self.openDescriptors()) open, \(before) before")
    }

    static func openDescriptors() -> Int {
        ((try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd")) ?? []).count
    }

    /// A Unix socket file nothing listens on.
    static func deadSocket(at path: String) throws {
        let fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(fd) }
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        withUnsafeMutableBytes(of: &address.sun_path) { raw in
            let bytes = Array(path.utf8)
            raw.copyBytes(from: bytes)
            raw[bytes.count] = 0
        }
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
        }
        guard bound == 0 else { throw HeadlessCompositor.Failure("bind \(path): \(errno)") }
    }
}
#endif
