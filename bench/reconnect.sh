#!/usr/bin/env bash
# Issue 33: the daemon's D-Bus name across a lost session bus. With the
# release binary (BIN, else built) on a private session bus at a fixed
# socket (dbus-daemon, never the machine's): a session runs, the bus is
# killed, and the daemon's CPU (utime + stime) is read over SECONDS seconds
# while no bus answers (it tries again 1 s, 3 s, 7 s, 15 s, 31 s ... after
# the loss, a minute apart at most: nothing else wakes it but the data);
# then a bus is started at the same address and the time until the name
# answers again is measured, ROUNDS times (the bus back after 0.5 s).
# Usage: [BIN=binary] bench/reconnect.sh [SECONDS] [ROUNDS]   (markdown for docs/performance.md)
set -euo pipefail
cd "$(dirname "$0")/.."
seconds=${1:-60}
rounds=${2:-5}
source bench/lib/release.sh
BIN=${BIN:-$(release_retime)}
exec python3 - "$BIN" "$seconds" "$rounds" <<'PY'
import os, statistics, subprocess, sys, tempfile, time

binary, seconds, rounds = os.path.abspath(sys.argv[1]), float(sys.argv[2]), int(sys.argv[3])
work = tempfile.mkdtemp()
socket = work + "/bus"
open(work + "/bus.conf", "w").write(f"""<!DOCTYPE busconfig PUBLIC "-//freedesktop//DTD D-Bus Bus Configuration 1.0//EN"
 "http://www.freedesktop.org/standards/dbus/1.0/busconfig.dtd">
<busconfig><type>session</type><listen>unix:path={socket}</listen><auth>EXTERNAL</auth>
<policy context="default"><allow user="*"/><allow own="*"/><allow send_destination="*" eavesdrop="true"/><allow eavesdrop="true"/></policy>
</busconfig>""")
address = "unix:path=" + socket
def bus():
    started = subprocess.Popen(["dbus-daemon", "--config-file=" + work + "/bus.conf", "--nofork", "--print-address=1"],
                               stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
    started.stdout.readline()
    return started
env = dict(os.environ, HOME=work + "/home", NO_COLOR="1", RETIME_SHIELD_SOCKET=work + "/none.sock",
           DBUS_SESSION_BUS_ADDRESS=address, DBUS_SYSTEM_BUS_ADDRESS="unix:path=" + work + "/no-system-bus")
env.pop("XDG_STATE_HOME", None)
data = work + "/data"
def retime(*args):
    subprocess.run([binary, "--data-dir", data, *args], env=env, check=True, stdout=subprocess.DEVNULL)
def cpu(pid):
    fields = open(f"/proc/{pid}/stat").read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) * 1000 / os.sysconf("SC_CLK_TCK")
def answers():
    return subprocess.run(["busctl", "--address=" + address, "status", "dev.retime.Retime1"], stdout=subprocess.DEVNULL,
                          stderr=subprocess.DEVNULL).returncode == 0
def wait_answer(limit=130):
    began = time.monotonic()
    while not answers():
        if time.monotonic() - began > limit: raise SystemExit("the name did not come back")
        time.sleep(0.02)
    return time.monotonic() - began

current = bus()
retime("group", "create", "focus")
daemon = subprocess.Popen([binary, "--data-dir", data, "daemon", "run"], env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
wait_answer()
retime("start", "focus", "--for", "25m")
time.sleep(1)
current.kill(); current.wait()
time.sleep(0.5)
before = cpu(daemon.pid)
time.sleep(seconds)
gone = cpu(daemon.pid) - before
current = bus()
first = wait_answer()
backs = []
for _ in range(rounds):
    current.kill(); current.wait()
    time.sleep(0.5)
    current = bus()
    backs.append(wait_answer())
retime("stop")
daemon.terminate(); daemon.wait()
current.kill()
device = [name for name in os.listdir(data + "/devices") if not name.startswith(".")][0]
log = open(data + "/devices/" + device + "/logs/daemon.log").read()
print("| daemon with its session bus gone | value |")
print("|---|---|")
print(f"| CPU over {seconds:.0f} s with no bus (ms, 10 ms ticks) | {gone:.0f} |")
print(f"| name back after the bus returned at {seconds + 0.5:.0f} s (s) | {first:.2f} |")
print(f"| name back after a 0.5 s restart, median / max of {rounds} (s) | {statistics.median(backs):.2f} / {max(backs):.2f} |")
print(f"| 'lost the session bus' / 'reconnected' lines in the log | {log.count('lost the session bus')} / {log.count('reconnected to the session bus')} |")
PY
