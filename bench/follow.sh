#!/usr/bin/env bash
# Issue 33: `retime status --follow` as a status bar runs it. Measured with
# the release binary (BIN, else built): the latency from a command that
# changes the state (start, pause, resume, stop) to the follower's line,
# from the command's start (the line often comes before it has exited; its
# own time is printed beside), median and max over
# ROUNDS rounds; and the CPU the follower and an idle daemon use over
# SECONDS seconds while a session runs (interval 1m: no line is due).
# Usage: [BIN=binary] bench/follow.sh [ROUNDS] [SECONDS]   (markdown for docs/performance.md)
set -euo pipefail
cd "$(dirname "$0")/.."
rounds=${1:-25}
seconds=${2:-20}
source bench/lib/release.sh
BIN=${BIN:-$(release_retime)}
exec python3 - "$BIN" "$rounds" "$seconds" <<'PY'
import os, statistics, subprocess, sys, tempfile, time, select

binary, rounds, seconds = os.path.abspath(sys.argv[1]), int(sys.argv[2]), float(sys.argv[3])
work = tempfile.mkdtemp()
env = dict(os.environ, HOME=work + "/home", NO_COLOR="1", RETIME_SHIELD_SOCKET=work + "/none.sock")
env.pop("XDG_STATE_HOME", None); env.pop("DBUS_SESSION_BUS_ADDRESS", None)
data = work + "/data"
def retime(*args):
    subprocess.run([binary, "--data-dir", data, *args], env=env, check=True, stdout=subprocess.DEVNULL)
def cpu(pid):
    # utime + stime of the whole process (threads that ended included), in ms.
    fields = open(f"/proc/{pid}/stat").read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) * 1000 / os.sysconf("SC_CLK_TCK")

retime("group", "create", "focus")
follower = subprocess.Popen([binary, "--data-dir", data, "status", "--follow"], env=env, stdout=subprocess.PIPE, bufsize=0)
def next_line(timeout=5):
    ready, _, _ = select.select([follower.stdout], [], [], timeout)
    if not ready: raise SystemExit("no line within %ss" % timeout)
    line = b""
    while not line.endswith(b"\n"): line += follower.stdout.read(1)
    return time.monotonic()
next_line()
latencies, commands = [], []
for _ in range(rounds):
    for command in (["start", "focus", "--for", "25m"], ["pause"], ["resume"], ["stop"]):
        began = time.monotonic()
        retime(*command)
        done = time.monotonic()
        commands.append((done - began) * 1000)
        latencies.append((next_line() - began) * 1000)

retime("start", "focus", "--for", "25m")
next_line()
daemon = subprocess.Popen([binary, "--data-dir", data, "daemon", "run"], env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
time.sleep(1)
before = (cpu(follower.pid), cpu(daemon.pid))
time.sleep(seconds)
after = (cpu(follower.pid), cpu(daemon.pid))
extra = follower.stdout.read(0)
daemon.terminate(); daemon.wait(); follower.terminate(); follower.wait()
subprocess.run(["rm", "-rf", work])
print("| status --follow (%s) | median | max |" % os.path.relpath(binary))
print("|---|---|---|")
print("| command started -> its line, ms (%d changes) | %.2f | %.2f |" % (len(latencies), statistics.median(latencies), max(latencies)))
print("| the command itself, start to exit, ms | %.2f | %.2f |" % (statistics.median(commands), max(commands)))
print()
print("| CPU while a session runs, %g s | follower | daemon |" % seconds)
print("|---|---|---|")
print("| ms of CPU (10 ms ticks) | %.0f | %.0f |" % (after[0] - before[0], after[1] - before[1]))
PY
