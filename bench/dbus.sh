#!/usr/bin/env bash
# Issue 33: the daemon's D-Bus name. Measured with the release binary (BIN,
# else built) on a private session bus (dbus-daemon, never the machine's):
# the latency from a command that changes the state (start, pause, resume,
# stop) to its PropertiesChanged, as dbus-monitor receives it, from the
# command's start (the signal often comes before the command has exited;
# its own time is printed beside), median and max over the changes of
# ROUNDS rounds (4 changes a round); and the CPU the daemon uses over
# SECONDS seconds while a session runs with the bus connected (nothing is
# due: a 25-minute session).
# Usage: [BIN=binary] bench/dbus.sh [ROUNDS] [SECONDS]   (markdown for docs/performance.md)
set -euo pipefail
cd "$(dirname "$0")/.."
rounds=${1:-13}
seconds=${2:-20}
source bench/lib/release.sh
BIN=${BIN:-$(release_retime)}
exec python3 - "$BIN" "$rounds" "$seconds" <<'PY'
import os, statistics, subprocess, sys, tempfile, time, select, signal

binary, rounds, seconds = os.path.abspath(sys.argv[1]), int(sys.argv[2]), float(sys.argv[3])
work = tempfile.mkdtemp()
open(work + "/bus.conf", "w").write(f"""<!DOCTYPE busconfig PUBLIC "-//freedesktop//DTD D-Bus Bus Configuration 1.0//EN"
 "http://www.freedesktop.org/standards/dbus/1.0/busconfig.dtd">
<busconfig><type>session</type><listen>unix:dir={work}</listen><auth>EXTERNAL</auth>
<policy context="default"><allow user="*"/><allow own="*"/><allow send_destination="*" eavesdrop="true"/><allow eavesdrop="true"/></policy>
</busconfig>""")
bus = subprocess.Popen(["dbus-daemon", "--config-file=" + work + "/bus.conf", "--nofork", "--print-address=1"], stdout=subprocess.PIPE)
address = bus.stdout.readline().decode().strip()
env = dict(os.environ, HOME=work + "/home", NO_COLOR="1", RETIME_SHIELD_SOCKET=work + "/none.sock",
           DBUS_SESSION_BUS_ADDRESS=address, DBUS_SYSTEM_BUS_ADDRESS="unix:path=" + work + "/no-system-bus")
env.pop("XDG_STATE_HOME", None)
data = work + "/data"
def retime(*args):
    subprocess.run([binary, "--data-dir", data, *args], env=env, check=True, stdout=subprocess.DEVNULL)
def cpu(pid):
    # utime + stime of the whole process (threads that ended included), in ms.
    fields = open(f"/proc/{pid}/stat").read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) * 1000 / os.sysconf("SC_CLK_TCK")

retime("group", "create", "focus")
daemon = subprocess.Popen([binary, "--data-dir", data, "daemon", "run"], env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
monitor = subprocess.Popen(["dbus-monitor", "--address", address, "--profile",
                            "type='signal',path='/dev/retime/Retime1',member='PropertiesChanged'"],
                           stdout=subprocess.PIPE, bufsize=0)
for _ in range(300):
    if subprocess.run(["busctl", "--address=" + address, "status", "dev.retime.Retime1"], stdout=subprocess.DEVNULL,
                      stderr=subprocess.DEVNULL).returncode == 0: break
    time.sleep(0.05)
time.sleep(0.5)
buffer = b""
def next_signal(timeout=5):
    # dbus-monitor --profile: "sig <time> ..." a line per signal, stamped when received (wall clock).
    global buffer
    deadline = time.monotonic() + timeout
    while True:
        while b"\n" in buffer:
            line, buffer = buffer.split(b"\n", 1)
            fields = line.split(b"\t")
            # The monitor's own NameAcquired and NameLost come whatever the match.
            if fields[0] == b"sig" and fields[-1] == b"PropertiesChanged": return float(fields[1])
        left = deadline - time.monotonic()
        if left <= 0: raise SystemExit("no signal within %ss" % timeout)
        ready, _, _ = select.select([monitor.stdout], [], [], left)
        if ready: buffer += os.read(monitor.stdout.fileno(), 65536)
latencies, commands = [], []
for _ in range(rounds):
    for command in (["start", "focus", "--for", "25m"], ["pause"], ["resume"], ["stop"]):
        began = time.time()
        retime(*command)
        commands.append((time.time() - began) * 1000)
        latencies.append((next_signal() - began) * 1000)

retime("start", "focus", "--for", "25m")
next_signal()
time.sleep(1)
before = cpu(daemon.pid)
time.sleep(seconds)
after = cpu(daemon.pid)
retime("stop")
daemon.terminate(); daemon.wait(); monitor.terminate(); monitor.wait(); bus.kill(); bus.wait()
subprocess.run(["rm", "-rf", work])
print("| D-Bus PropertiesChanged (%s) | median | max |" % os.path.relpath(binary))
print("|---|---|---|")
print("| command started -> its signal, ms (%d changes) | %.2f | %.2f |" % (len(latencies), statistics.median(latencies), max(latencies)))
print("| the command itself, start to exit, ms | %.2f | %.2f |" % (statistics.median(commands), max(commands)))
print()
print("| daemon's CPU while a session runs, bus connected, %g s | ms (10 ms ticks) |" % seconds)
print("|---|---|")
print("| daemon | %.0f |" % (after - before))
PY
