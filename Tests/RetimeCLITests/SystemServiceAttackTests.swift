#if canImport(Glibc)
import Glibc
#endif
import Foundation
import Testing

/// Issue 28: one local user (uid 65534) attacks the service every user
/// shares, while another (65533) uses it. Whatever the attacker does, the
/// victim's requests are answered and its strict block is lifted at its end.
@Suite("The system service under attack by another local user", .enabled(if: SystemServiceHarness.available, "needs root and setpriv"))
struct SystemServiceAttackTests {
    static let attacker: UInt32 = 65_534
    static let victim: UInt32 = 65_533

    /// The attacker's program (python3, as `uid`), started: `script` gets
    /// the socket as argv[1], `arguments` after it, and a file it creates
    /// once its attack is under way as argv[2].
    static func attack(_ system: SystemServiceHarness, _ script: String, _ arguments: [String] = [],
                       as uid: UInt32 = attacker) throws -> (Process, String) {
        // The attacker's own folder: it writes there that it began, and
        // what it saw (a file, not a pipe nobody reads while it runs).
        let folder = system.root + "/attacker-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o777])
        let ready = folder + "/ready"
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/setpriv")
        process.arguments = ["--reuid=\(uid)", "--regid=\(uid)", "--clear-groups", "/usr/bin/python3", "-c", prelude + script,
                             system.socket, ready] + arguments
        _ = FileManager.default.createFile(atPath: folder + "/output", contents: nil)
        let out = try FileHandle(forWritingTo: URL(fileURLWithPath: folder + "/output"))
        process.standardOutput = out
        process.standardError = out
        try process.run()
        try out.close()
        #expect(eventually(within: 60) { FileManager.default.fileExists(atPath: ready) || !process.isRunning }, "the attack began")
        return (process, ready)
    }

    /// What every attack script shares: `ask` sends one request and reads its answer.
    static let prelude = """
        import json, os, socket, sys, threading, time
        path, ready = sys.argv[1], sys.argv[2]
        def ask(request):
            s = socket.socket(socket.AF_UNIX); s.connect(path)
            s.sendall((json.dumps(request) + "\\n").encode())
            data = b""
            while not data.endswith(b"\\n"):
                chunk = s.recv(1 << 16)
                if not chunk: break
                data += chunk
            s.close()
            return data
        def began(): open(ready, "w").close()

        """

    /// Tells the attack to stop, and what it printed once it has.
    static func finish(_ attack: (Process, String)) -> String {
        _ = FileManager.default.createFile(atPath: attack.1 + ".stop", contents: nil)
        attack.0.waitUntilExit()
        return (try? String(contentsOfFile: (attack.1 as NSString).deletingLastPathComponent + "/output", encoding: .utf8)) ?? ""
    }

    /// The victim starts a strict session through the service (shield
    /// `system`: no falling back to `none`), which is lifted at its end,
    /// then a session it stops itself.
    static func victimIsServed(_ system: SystemServiceHarness, _ label: String) throws {
        let user = system.client(uid: victim)
        try user.run("config", "set", "shield", "system")
        try user.run("group", "create", "work", "--block", "victim.example")
        // Long enough that the block is still up when a start slowed by the
        // attack (and a parallel suite on two cores) returns.
        let start = try user.run("start", "work", "--for", "5s", "--strict")
        #expect(start.status == 0 && system.blocked.contains("victim.example"), "\(label): the victim's block raised: \(start.err)")
        #expect(eventually(within: 12) { !system.blocked.contains("victim.example") }, "\(label): the victim's strict block lifted at its end")
        _ = try user.run("status")
        let again = try user.run("start", "work", "--for", "10m")
        #expect(again.status == 0 && system.blocked.contains("victim.example"), "\(label): raised again: \(again.err)")
        let stop = try user.run("stop")
        #expect(stop.status == 0 && !system.blocked.contains("victim.example"), "\(label): lowered: \(stop.err)")
    }

    @Test("inspect of 1,000 targets (the most a request asks) over and over: each request reads the layers once; the victim is served")
    func inspectFlood() throws {
        let system = try SystemServiceHarness()
        let service = try system.start()
        defer { system.stop(service) }
        let attack = try Self.attack(system, """
            names = ["d%d.%s.io" % (i, "x" * 44) for i in range(1000)]
            raised = ask({"version": 1, "op": "raise", "session": "00000000-0000-0000-0000-000000000001", "targets": names})
            assert b'"ok":true' in raised, raised[:300]
            answered = []
            def flood():
                while not os.path.exists(ready + ".stop"):
                    try: answered.append(ask({"version": 1, "op": "inspect", "targets": names}))
                    except OSError: time.sleep(0.01)
            threads = [threading.Thread(target=flood) for _ in range(6)]
            for t in threads: t.start()
            began()
            for t in threads: t.join()
            print(len(answered), sum(1 for a in answered if b'"ok":true' in a))
            """)
        try Self.victimIsServed(system, "inspect flood")
        let said = Self.finish(attack)
        let counts = said.split(separator: " ").compactMap { Int($0.trimmingCharacters(in: .whitespacesAndNewlines)) }
        #expect(counts.count == 2 && counts[1] > 0, "the attacker's inspects were answered too: \(said)")
        #expect(service.process.isRunning)
    }

    @Test("inspect answers larger than the socket's buffer, never read: the loop writes what each client takes and moves on; the victim is served")
    func unreadAnswers() throws {
        let system = try SystemServiceHarness()
        let service = try system.start()
        defer { system.stop(service) }
        let attack = try Self.attack(system, """
            names = ["d%d.%s.io" % (i, "x" * 44) for i in range(1000)]
            raised = ask({"version": 1, "op": "raise", "session": "00000000-0000-0000-0000-000000000001", "targets": names})
            assert b'"ok":true' in raised, raised[:300]
            request = (json.dumps({"version": 1, "op": "inspect", "targets": names}) + "\\n").encode()
            live = []
            began()
            while not os.path.exists(ready + ".stop"):
                # Never read: each answer (about 400 KB) fills the socket.
                live = [(s, t) for (s, t) in live if time.time() - t < 6 or s.close()]
                while len(live) < 16:
                    try:
                        s = socket.socket(socket.AF_UNIX); s.connect(path); s.sendall(request)
                        live.append((s, time.time()))
                    except OSError:
                        break
                time.sleep(0.2)
            print("done")
            """)
        try Self.victimIsServed(system, "unread answers")
        let said = Self.finish(attack)
        #expect(said.contains("done"), "\(said)")
        #expect(service.process.isRunning)
    }

    @Test("16 status answers of 700 KB, never read: past 2 MiB unsent the user's oldest are cut at once, never another user's unread answer")
    func unreadAnswersCapped() throws {
        let system = try SystemServiceHarness()
        let service = try system.start()
        defer { system.stop(service) }
        // Each user holds a strict block of 10,000 long names (raised 1,000
        // a request, as a request line holds at most 64 KiB) and asks its
        // status: an answer of about 700 KB, about 200 KB of it in the
        // socket's buffer, the rest unsent.
        let asks = """
            import datetime, select
            names = ["d%d.%s.io" % (i, "x" * 52) for i in range(10000)]
            end = (datetime.datetime.now(datetime.timezone.utc) + datetime.timedelta(minutes=10)).strftime("%Y-%m-%dT%H:%M:%SZ")
            for part in range(10):
                raised = ask({"version": 1, "op": "raise", "session": "00000000-0000-0000-0000-000000000001", "strict": True,
                              "plannedEnd": end, "length": 600, "targets": names[part * 1000:(part + 1) * 1000]})
                assert b'"ok":true' in raised, raised[:300]
            request = (json.dumps({"version": 1, "op": "status"}) + "\\n").encode()

            """
        let shared = system.root + "/shared-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: shared, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o777])
        // The victim's one answer, asked once the attack is under way and
        // read 1 s later (before its 5 s are up).
        let victim = try Self.attack(system, asks + """
            began()
            while not os.path.exists(sys.argv[3]): time.sleep(0.01)
            s = socket.socket(socket.AF_UNIX); s.connect(path); s.sendall(request)
            time.sleep(1)
            data = b""
            while not data.endswith(b"\\n"):
                chunk = s.recv(1 << 16)
                if not chunk: break
                data += chunk
            answer = json.loads(data or b"{}")
            print(answer.get("ok"), sum(len(block.get("targets") or []) for block in answer.get("blocks") or []))
            """, [shared + "/attack-began"], as: Self.victim)
        let attack = try Self.attack(system, asks + """
            sockets = []
            for _ in range(16):
                s = socket.socket(socket.AF_UNIX); s.connect(path); s.sendall(request); sockets.append(s)
            open(sys.argv[3], "w").close()
            began()
            # When each answer began to come, and when the service hung up;
            # nothing is ever read.
            answered, hung = {}, {}
            watch = select.poll()
            for s in sockets: watch.register(s, select.POLLIN | select.POLLRDHUP)
            deadline = time.time() + 60
            while len(hung) < len(sockets) and time.time() < deadline:
                for fd, events in watch.poll(100):
                    now = time.time()
                    answered.setdefault(fd, now)
                    if events & (select.POLLRDHUP | select.POLLHUP):
                        hung.setdefault(fd, now); watch.unregister(fd)
                    else:
                        watch.modify(fd, select.POLLRDHUP)
            print(len(answered), len(hung), sum(1 for fd in hung if hung[fd] - answered[fd] < 3))
            """, [shared + "/attack-began"])
        let said = Self.finish(attack).split(separator: " ").compactMap { Int($0.trimmingCharacters(in: .whitespacesAndNewlines)) }
        // Before the cap each was held its 5 s; now all but the newest two
        // or so are cut as the next is answered.
        #expect(said.count == 3 && said[0] == 16 && said[1] == 16 && said[2] >= 12,
                "answers begun, connections hung up, of them cut within 3 s of their answer: \(said)")
        let victimSaid = Self.finish(victim)
        #expect(victimSaid.contains("True 10000"), "the victim's unread answer was kept whole: \(victimSaid)")
        #expect(service.process.isRunning)
    }

    @Test("200 threads reconnecting as fast as they are refused (the user holds its 16): the loop still answers another user's every request")
    func refusalStorm() throws {
        let system = try SystemServiceHarness()
        let service = try system.start()
        defer { system.stop(service) }
        let attack = try Self.attack(system, """
            held = []
            def hold():
                # 16 connections begun and kept (reopened as they are cut).
                while not os.path.exists(ready + ".stop"):
                    s = socket.socket(socket.AF_UNIX)
                    try:
                        s.connect(path); s.sendall(b"{"); s.settimeout(10); s.recv(4096)
                    except OSError:
                        pass
                    s.close()
            def storm():
                while not os.path.exists(ready + ".stop"):
                    try:
                        s = socket.socket(socket.AF_UNIX); s.connect(path); s.recv(4096); s.close()
                    except OSError:
                        pass
            holders = [threading.Thread(target=hold) for _ in range(16)]
            for t in holders: t.start()
            time.sleep(0.5)
            storms = [threading.Thread(target=storm) for _ in range(200)]
            for t in storms: t.start()
            time.sleep(1)
            began()
            for t in holders + storms: t.join()
            """)
        // The victim's own raw requests, one after another, timed.
        let victim = try Self.attack(system, """
            took = []
            for _ in range(100):
                t = time.time(); answer = ask({"version": 1, "op": "status"}); took.append(time.time() - t)
                assert b'"ok":true' in answer, answer[:200]
            began()
            print("%.3f %.3f" % (sorted(took)[len(took) // 2], max(took)))
            """, as: Self.victim)
        let said = Self.finish(victim).split(separator: " ").compactMap { Double($0.trimmingCharacters(in: .whitespacesAndNewlines)) }
        _ = Self.finish(attack)
        // Every one answered, within the client's own 5 s: how fast is
        // bench/attack.sh's (a wall-clock bound here fails on a busy machine).
        #expect(said.count == 2 && said[1] < 5, "the victim's status, median and slowest, in seconds: \(said)")
        #expect(service.process.isRunning)
    }

    @Test("300 silent connections from one user, reopened as they are cut: that user is refused past its 16, the victim is served")
    func connectionFlood() throws {
        let system = try SystemServiceHarness()
        let service = try system.start()
        defer { system.stop(service) }
        let attack = try Self.attack(system, """
            refusals = set()
            def hold():
                while not os.path.exists(ready + ".stop"):
                    opened = time.time()
                    try:
                        s = socket.socket(socket.AF_UNIX); s.connect(path); s.settimeout(3)
                        data = s.recv(4096)
                        if data: refusals.add(json.loads(data)["error"]["message"].split(";")[0])
                        s.close()
                    except Exception:
                        pass
                    # As observed: each reopened 5 s after it was opened.
                    time.sleep(max(0.01, opened + 5 - time.time()))
            threads = [threading.Thread(target=hold) for _ in range(300)]
            for t in threads: t.start()
            time.sleep(0.5)
            began()
            for t in threads: t.join()
            print(json.dumps(sorted(refusals)))
            """)
        try Self.victimIsServed(system, "connection flood")
        let said = Self.finish(attack)
        #expect(said.contains("your user has 16 connections"), "the attacker is told its limit: \(said)")
        #expect(said.contains("a request must begin within"), "its silent connections are cut early: \(said)")
        #expect(service.process.isRunning)
    }

    @Test("re-raising 4,500 fresh names in a loop: past its share of new names the attacker is told to slow down; the victim is served")
    func freshNamesLoop() throws {
        let system = try SystemServiceHarness()
        let service = try system.start()
        defer { system.stop(service) }
        let attack = try Self.attack(system, """
            session = "00000000-0000-0000-0000-000000000003"
            codes = {}; accepted = 0; n = 0
            began()
            started = time.time()
            while not os.path.exists(ready + ".stop"):
                # Short names: 4,500 of them fit in one request (64 KiB).
                names = ["%s%d.io" % ("abcdefghijklmnopqrstuvwxyz"[n % 26] + "abcdefghijklmnopqrstuvwxyz"[n // 26 % 26], i) for i in range(4500)]; n += 1
                answer = json.loads(ask({"version": 1, "op": "raise", "session": session, "targets": names}) or b"{}")
                code = answer.get("error", {}).get("code", "ok")
                codes[code] = codes.get(code, 0) + 1
                if code == "ok": accepted += 4500
                else: time.sleep(0.01)
            print(json.dumps({"codes": codes, "accepted": accepted, "seconds": time.time() - started}))
            """)
        try Self.victimIsServed(system, "fresh names loop")
        let said = Self.finish(attack)
        let report = (try? JSONSerialization.jsonObject(with: Data(said.utf8)) as? [String: Any]) ?? [:]
        let codes = report["codes"] as? [String: Int] ?? [:], accepted = report["accepted"] as? Int ?? .max
        let seconds = report["seconds"] as? Double ?? 0
        // 20,000 names at once, then 5,000 a second, rounded up a raise
        // (the budget's own rules are `ShieldProtocolTests.freshNamesBudget`).
        #expect(codes["system.badRequest"] == nil && Double(accepted) <= 20_000 + 5_000 * seconds.rounded(.up) + 4_500, "\(said)")
        #expect(service.process.isRunning)
    }

    @Test("a strict raise ending in the year 9999, or later than its length: refused, as the CLI refuses it")
    func farAhead() throws {
        let system = try SystemServiceHarness()
        let service = try system.start()
        defer { system.stop(service) }
        let attack = try Self.attack(system, """
            began()
            for end, length in [("9999-12-31T00:00:00Z", 60), ("9999-12-31T00:00:00Z", 86400)]:
                print(ask({"version": 1, "op": "raise", "session": "00000000-0000-0000-0000-000000000002", "targets": ["x.example"],
                           "strict": True, "plannedEnd": end, "length": length}).decode().strip())
            """)
        let said = Self.finish(attack)
        let answers = said.split(separator: "\n")
        #expect(answers.count == 2 && answers.allSatisfy { $0.contains("\"ok\":false") && $0.contains("at most") }, "\(said)")
        #expect(!system.blocked.contains("x.example"))
        #expect(service.process.isRunning)
    }
}
