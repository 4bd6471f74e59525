#if canImport(Glibc)
import Glibc
#endif
import Foundation
import Testing

/// Issues 28 and 44: one local user (uid 65534) attacks the service's
/// passcode requests, each a hash of tens of milliseconds on the loop every
/// user shares (the harness and the attack scripts are
/// `SystemServiceAttackTests`'). Past its share the attacker is told to
/// slow down; its audit stays small; another user is served.
@Suite("The system service's passcode requests under attack", .enabled(if: SystemServiceHarness.available, "needs root and setpriv"))
struct SystemServicePasscodeAttackTests {
    static let attacker = SystemServiceAttackTests.attacker

    /// A service of the test's own, the attacker's passcode set there.
    static func serviceWithAttackersPasscode() throws -> (SystemServiceHarness, RetimeProcess.Running) {
        let system = try SystemServiceHarness()
        let service = try system.start()
        let attacker = system.client(uid: Self.attacker)
        #expect(try attacker.run(["auth", "set-passcode", "--stdin"], input: "right-one\n").status == 0)
        return (system, service)
    }

    @Test("250 setPasscode requests at once: refused before any hash, past its share told when to retry; the victim is served")
    func setPasscodeFlood() throws {
        let (system, service) = try Self.serviceWithAttackersPasscode()
        defer { system.stop(service) }
        let attack = try SystemServiceAttackTests.attack(system, """
            codes = []
            def flood():
                while not os.path.exists(ready + ".stop"):
                    try: answer = json.loads(ask({"version": 1, "op": "setPasscode", "passcode": "another-one"}) or b"{}")
                    except (OSError, ValueError): time.sleep(0.01); continue
                    codes.append(answer.get("error", {}).get("code", "ok"))
                    time.sleep(0.05)  # 250 in flight, 5,000 a second: the service's work, not this test's CPU
            threads = [threading.Thread(target=flood) for _ in range(250)]
            for t in threads: t.start()
            began()
            for t in threads: t.join()
            print(json.dumps(sorted(set(codes))))
            """)
        try SystemServiceAttackTests.victimIsServed(system, "setPasscode flood")
        let said = SystemServiceAttackTests.finish(attack)
        #expect(said.contains("system.slowDown"), "past its share the attacker is told to slow down: \(said)")
        #expect(service.process.isRunning)
    }

    @Test("verifyPasscode with the right passcode, 60 times in a row: past its share the user is told to slow down, like any hashing request")
    func verifyFlood() throws {
        let (system, service) = try Self.serviceWithAttackersPasscode()
        defer { system.stop(service) }
        let attack = try SystemServiceAttackTests.attack(system, """
            began()
            codes = []
            started = time.time()
            for _ in range(60):
                answer = json.loads(ask({"version": 1, "op": "verifyPasscode", "passcode": "right-one"}) or b"{}")
                codes.append(answer.get("error", {}).get("code", "ok"))
            print(json.dumps({"codes": codes, "seconds": time.time() - started}))
            """)
        let said = SystemServiceAttackTests.finish(attack)
        let report = (try? JSONSerialization.jsonObject(with: Data(said.utf8)) as? [String: Any]) ?? [:]
        let codes = report["codes"] as? [String] ?? [], seconds = report["seconds"] as? Double ?? 0
        #expect(codes.count == 60 && codes.contains("system.slowDown"), "\(said)")
        // A burst of 8, then one a second: never more checks than that.
        #expect(Double(codes.filter { $0 == "ok" }.count) <= 8 + seconds.rounded(.up), "\(said)")
        #expect(service.process.isRunning)
    }

    @Test("600 wrong removePasscode requests, lockout included: the attacker's audit stays small, its refusals summarised")
    func auditGrowth() throws {
        let (system, service) = try Self.serviceWithAttackersPasscode()
        defer { system.stop(service) }
        let attack = try SystemServiceAttackTests.attack(system, """
            began()
            for i in range(600):
                try: ask({"version": 1, "op": "removePasscode", "passcode": "wrong-%d" % i})
                except OSError: pass
                if i % 50 == 0: time.sleep(1.1)
            """)
        _ = SystemServiceAttackTests.finish(attack)
        let audit = system.state + "/users/\(Self.attacker)/audit.jsonl"
        let size = (try? FileManager.default.attributesOfItem(atPath: audit)[.size] as? Int) ?? 0
        let lines = (try? String(contentsOfFile: audit, encoding: .utf8))?.split(separator: "\n") ?? []
        #expect(size < 16_384, "\(size) bytes, \(lines.count) lines")
        #expect(lines.contains { $0.contains("\"count\"") }, "refusals in a row are one line with their count: \(lines.suffix(3))")
        #expect(service.process.isRunning)
    }
}
