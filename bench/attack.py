#!/usr/bin/env python3
"""One local user attacks the system service while another uses it (issue 28).

Run by bench/attack.sh as root, beside a service it started:
    attack.py RETIME SOCKET HOSTS SERVICE_PID WORK SECONDS

The attacker (uid 30001) runs, for SECONDS, every attack of issue 28 at once:
`inspect` of 1,000 targets it blocks (4 connections in a loop), 300 silent
connections reopened as they are cut, 50 `setPasscode` and 10 wrong
`removePasscode` requests in a loop; and RETIME_BENCH_HOGS processes that only
spin (none by default). The victim (uid 30002) meanwhile runs
`retime start` and `retime stop` through the service, and every few seconds a
2 s strict session whose block the service must lift at its end. Printed: the
victim's latencies, how late its strict blocks were lifted, the service's
memory and descriptors over time; then, with the attack over, `inspect` of as
many targets as a request holds against a 10,000-target block, and the
service's memory with 1,000 connections open.
"""
import json, os, socket, subprocess, sys, threading, time

retime, path, hosts, service, work, seconds = sys.argv[1:7]
service, seconds = int(service), float(seconds)
ATTACKER, VICTIM = 30001, 30002
stop = threading.Event()


def as_user(uid):
    """Drops to `uid`, in its CPU group first (bench/attack.sh made it)."""
    group = os.environ.get({ATTACKER: "RETIME_BENCH_ATTACKER_GROUP", VICTIM: "RETIME_BENCH_VICTIM_GROUP"}.get(uid, "RETIME_BENCH_ATTACKER_GROUP"))

    def drop():
        if group:
            with open(group + "/cgroup.procs", "w") as f:
                f.write(str(os.getpid()))
        os.setgroups([])
        os.setgid(uid)
        os.setuid(uid)
    return drop


def ask(request, timeout=30):
    s = socket.socket(socket.AF_UNIX)
    s.settimeout(timeout)
    s.connect(path)
    s.sendall((json.dumps(request) + "\n").encode())
    data = b""
    while not data.endswith(b"\n"):
        chunk = s.recv(1 << 16)
        if not chunk:
            break
        data += chunk
    s.close()
    return data


def in_child(uid, body):
    """Runs `body` in a child process as `uid`; returns its pid."""
    pid = os.fork()
    if pid == 0:
        try:
            as_user(uid)()
            body()
        finally:
            os._exit(0)
    return pid


def attacker():
    names = ["d%d.attack.example" % i for i in range(1000)]
    ask({"version": 1, "op": "raise", "session": "00000000-0000-0000-0000-000000000001", "targets": names})
    ask({"version": 1, "op": "setPasscode", "passcode": "attacker-passcode"})
    end = time.time() + seconds

    def loop(request):
        while time.time() < end:
            try:
                ask(request, timeout=10)
            except OSError:
                time.sleep(0.01)

    def silent():
        # As observed: each reopened 5 s after it was opened, once cut.
        while time.time() < end:
            opened = time.time()
            try:
                s = socket.socket(socket.AF_UNIX)
                s.settimeout(10)
                s.connect(path)
                s.recv(4096)
                s.close()
            except OSError:
                pass
            time.sleep(max(0.01, opened + 5 - time.time()))

    # Plain CPU load beside the requests (RETIME_BENCH_HOGS processes that
    # only spin): what a user's builds do to a machine's other users.
    hogs = []
    for _ in range(int(os.environ.get("RETIME_BENCH_HOGS", "0"))):
        pid = os.fork()
        if pid == 0:
            while time.time() < end:
                pass
            os._exit(0)
        hogs.append(pid)
    threads = [threading.Thread(target=loop, args=({"version": 1, "op": "inspect", "targets": names},)) for _ in range(4)]
    threads += [threading.Thread(target=silent) for _ in range(300)]
    threads += [threading.Thread(target=loop, args=({"version": 1, "op": "setPasscode", "passcode": "another-one"},)) for _ in range(50)]
    threads += [threading.Thread(target=loop, args=({"version": 1, "op": "removePasscode", "passcode": "wrong-one"},)) for _ in range(10)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    for pid in hogs:
        os.waitpid(pid, 0)


def victim_command(*arguments):
    began = time.time()
    done = subprocess.run([retime, "--data-dir", work + "/victim", *arguments], preexec_fn=as_user(VICTIM),
                          env={"RETIME_SHIELD_SOCKET": path, "HOME": work + "/victim-home", "PATH": "/usr/bin:/bin"},
                          capture_output=True, text=True, timeout=60)
    return time.time() - began, done


def blocked(domain):
    with open(hosts) as f:
        return any(line.startswith("0.0.0.0 " + domain) for line in f)


def sample(samples):
    while not stop.is_set():
        with open("/proc/%d/status" % service) as f:
            rss = next(int(line.split()[1]) for line in f if line.startswith("VmRSS"))
        samples.append((time.time(), rss, len(os.listdir("/proc/%d/fd" % service))))
        time.sleep(1)


def cpu(pid):
    """The process's CPU seconds (user + system), and when they were read."""
    with open("/proc/%d/stat" % pid) as f:
        fields = f.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK"), time.time()


def percentile(values, p):
    values = sorted(values)
    return values[min(len(values) - 1, int(round(p / 100 * (len(values) - 1))))] if values else float("nan")


def main():
    os.makedirs(work + "/victim", exist_ok=True)
    os.makedirs(work + "/victim-home", exist_ok=True)
    os.chown(work + "/victim", VICTIM, VICTIM)
    os.chown(work + "/victim-home", VICTIM, VICTIM)
    for arguments in (["group", "create", "g", "--block", "victim.example"], ["config", "set", "shield", "system"]):
        victim_command(*arguments)
    ms = lambda v: "%.1f ms" % (v * 1000)
    # The same commands with nobody attacking, to compare.
    quiet = []
    for _ in range(20):
        quiet.append(victim_command("start", "g", "--for", "25m")[0])
        quiet.append(victim_command("stop")[0])
    print("| victim's `start`/`stop`, nobody attacking (%d) | p50 %s | p99 %s | max %s |" % (len(quiet), ms(percentile(quiet, 50)), ms(percentile(quiet, 99)), ms(max(quiet))))
    samples = []
    threading.Thread(target=sample, args=(samples,), daemon=True).start()
    attack = in_child(ATTACKER, attacker)
    time.sleep(2)  # the attack under way
    starts, stops, late, failures = [], [], [], []
    end = time.time() + seconds - 4

    # The service's own answer time, beside the commands: the victim's
    # `status` request, raw, every 50 ms.
    def round_trips():
        out = []
        while time.time() < end:
            began = time.time()
            try:
                ask({"version": 1, "op": "status"})
                out.append(time.time() - began)
            except OSError:
                out.append(float("inf"))
            time.sleep(0.05)
        os.write(trips_pipe[1], (" ".join("%.6f" % t for t in out)).encode())
    trips_pipe = os.pipe()
    cpu_before = cpu(service)
    tripper = in_child(VICTIM, round_trips)
    os.close(trips_pipe[1])
    rounds = 0
    while time.time() < end:
        rounds += 1
        if rounds % 5 == 0:
            took, done = victim_command("start", "g", "--for", "2s", "--strict", "--json")
            if done.returncode != 0:
                failures.append(done.stderr.strip()[:200])
                continue
            planned = json.loads(done.stdout)
            planned = planned.get("plannedEnd") or planned.get("session", {}).get("plannedEnd")
            from datetime import datetime
            deadline = datetime.fromisoformat(planned.replace("Z", "+00:00")).timestamp()
            while blocked("victim.example") and time.time() < deadline + 30:
                time.sleep(0.002)
            late.append(time.time() - deadline)
            victim_command("stop")  # the session ended: history only
            continue
        took, done = victim_command("start", "g", "--for", "25m")
        starts.append(took)
        if done.returncode != 0:
            failures.append(done.stderr.strip()[:200])
        took, done = victim_command("stop")
        stops.append(took)
        if done.returncode != 0:
            failures.append(done.stderr.strip()[:200])
    os.waitpid(tripper, 0)
    cpu_after = cpu(service)
    os.waitpid(attack, 0)
    stop.set()
    starts, stops, late = starts or [float("nan")], stops or [float("nan")], late or [float("nan")]
    trips = [float(t) for t in os.read(trips_pipe[0], 1 << 20).decode().split()]
    cpu_share = (cpu_after[0] - cpu_before[0]) / max(1e-9, cpu_after[1] - cpu_before[1]) * 100
    print("| victim's `start` through the service (%d) | p50 %s | p99 %s | max %s |" % (len(starts), ms(percentile(starts, 50)), ms(percentile(starts, 99)), ms(max(starts or [0]))))
    print("| victim's `stop` through the service (%d) | p50 %s | p99 %s | max %s |" % (len(stops), ms(percentile(stops, 50)), ms(percentile(stops, 99)), ms(max(stops or [0]))))
    print("| victim's 2 s strict block lifted after its end (%d) | p50 %s | max %s | |" % (len(late), ms(percentile(late, 50)), ms(max(late or [0]))))
    print("| victim's `status` request, raw, round trip (%d) | p50 %s | p99 %s | max %s |" % (len(trips), ms(percentile(trips, 50)), ms(percentile(trips, 99)), ms(max(trips))))
    print("| service CPU while those were asked | %.0f%% of one core | | |" % cpu_share)
    print("| victim's commands that failed | %d | %s | |" % (len(failures), "; ".join(sorted(set(failures)))[:300]))
    rss = [s[1] for s in samples]
    fds = [s[2] for s in samples]
    print("| service RSS during the attack | first %.1f MiB | max %.1f MiB | last %.1f MiB |" % (rss[0] / 1024, max(rss) / 1024, rss[-1] / 1024))
    print("| service open descriptors during the attack | first %d | max %d | last %d |" % (fds[0], max(fds), fds[-1]))
    # inspect of as many targets as one request holds, against a 10,000-target
    # block (root's own: root is a user of the service too).
    names = ["%x.bx" % i for i in range(10000)]
    for part in range(0, 10000, 2500):
        answer = ask({"version": 1, "op": "raise", "session": "00000000-0000-0000-0000-000000000003", "targets": names[part:part + 2500],
                      "strict": True, "plannedEnd": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(time.time() + 600)), "length": 600})
        assert b'"ok":true' in answer, answer[:300]
    for asked in (names[:1000], names[:5000]):
        began = time.time()
        try:
            answer = ask({"version": 1, "op": "inspect", "targets": asked}, timeout=120)
        except OSError:
            answer = b"{}"
        took = time.time() - began
        answered = len(json.loads(answer or b"{}").get("checks") or [])
        print("| `inspect` of %d targets against a 10,000-target block | %.0f ms | %d answered | |" % (len(asked), took * 1000, answered))

    # 1,000 connections open at once: 63 users, 16 each (their most).
    held = []
    for index in range(63):
        uid = 31000 + index
        pid = os.fork()
        if pid == 0:
            as_user(uid)()
            sockets = []
            for _ in range(16):
                s = socket.socket(socket.AF_UNIX)
                s.connect(path)
                s.sendall(b"{")  # begun, so not cut as idle for 5 s
                sockets.append(s)
            time.sleep(4)
            os._exit(0)
        held.append(pid)
    time.sleep(2)
    with open("/proc/%d/status" % service) as f:
        rss = next(int(line.split()[1]) for line in f if line.startswith("VmRSS"))
    descriptors = len(os.listdir("/proc/%d/fd" % service))
    for pid in held:
        os.waitpid(pid, 0)
    print("| service with 1,008 connections open (63 users x 16) | RSS %.1f MiB | %d descriptors | |" % (rss / 1024, descriptors))


main()
