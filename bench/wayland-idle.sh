#!/usr/bin/env bash
# Issue 33: the daemon following the Wayland compositor's idle time. Measured
# with the release binary (BIN, else built) on a sway started headless for
# the run (never the machine's display; as nobody when run as root, since
# sway refuses root): the CPU the daemon uses over SECONDS seconds while a
# 25-minute session runs, connected to the compositor and without input
# (its 30 s idle notification comes within the window), and the time from
# a key (wtype) after the idle to the away stretch being closed in the data
# folder (`status --json` polled every 5 ms), over ROUNDS rounds.
# Usage: [BIN=binary] bench/wayland-idle.sh [ROUNDS] [SECONDS]   (markdown for docs/performance.md)
set -euo pipefail
cd "$(dirname "$0")/.."
rounds=${1:-3}
seconds=${2:-40}
source bench/lib/release.sh
BIN=${BIN:-$(release_retime)}
exec python3 - "$BIN" "$rounds" "$seconds" <<'PY'
import glob, json, os, statistics, subprocess, sys, tempfile, time

binary, rounds, seconds = os.path.abspath(sys.argv[1]), int(sys.argv[2]), float(sys.argv[3])
sys.path.insert(0, "bench/lib")
from headless_sway import HeadlessSway
from retime_daemon import cpu, start_daemon
work = tempfile.mkdtemp()
compositor = HeadlessSway(work)
runtime = compositor.runtime
sway = compositor.start()
for _ in range(600):
    sockets = [p for p in glob.glob(runtime + "/wayland-*") if not p.endswith(".lock")]
    if sockets: break
    time.sleep(0.05)
display = os.path.basename(sockets[0])
env = dict(os.environ, HOME=work + "/home", NO_COLOR="1", RETIME_SHIELD_SOCKET=work + "/none.sock",
           XDG_RUNTIME_DIR=runtime, WAYLAND_DISPLAY=display, DBUS_SYSTEM_BUS_ADDRESS="unix:path=" + work + "/no-system-bus")
env.pop("XDG_STATE_HOME", None)
env.pop("DBUS_SESSION_BUS_ADDRESS", None)
data = work + "/data"
def retime(*args):
    return subprocess.run([binary, "--data-dir", data, *args], env=env, check=True, stdout=subprocess.PIPE).stdout
def key():
    subprocess.run(["wtype", "-k", "space"], env=env, check=True)
def closed():
    # Stretches the return has ended (an open one, since the idle, has no end).
    return sum(1 for stretch in json.loads(retime("status", "--json"))["session"]["away"] if stretch["end"])

retime("config", "set", "away.threshold", "30s")
retime("group", "create", "focus")
finding = [c for c in json.loads(retime("doctor", "--json"))["checks"] if c["name"] == "away time"][0]["detail"]
retime("start", "focus", "--for", "25m")
daemon = start_daemon(binary, data, env)
time.sleep(1)
key()
before = cpu(daemon.pid)
time.sleep(seconds)
after = cpu(daemon.pid)
returns = []
for round in range(rounds):
    if round > 0: time.sleep(32)  # the next idle: 30 s without input
    recorded = closed()
    began = time.time()
    key()
    while closed() == recorded: time.sleep(0.005)
    returns.append((time.time() - began) * 1000)
retime("stop")
daemon.terminate(); daemon.wait(); sway.kill(); sway.wait()
subprocess.run(["rm", "-rf", work])
print("doctor: away time: " + finding)
print()
print("| daemon's CPU, a session running, following sway's idle time without input, %g s | ms (10 ms ticks) |" % seconds)
print("|---|---|")
print("| daemon (%s) | %.0f |" % (os.path.relpath(binary), after - before))
print()
print("| key after an idle -> the away stretch closed in the data folder, ms (%d rounds) | median | max |" % len(returns))
print("|---|---|---|")
print("| %s | %.1f | %.1f |" % ("wtype started -> `status --json` lists it", statistics.median(returns), max(returns)))
PY
