#!/usr/bin/env bash
# Issue 33: a daemon started before the desktop (no WAYLAND_DISPLAY, the
# user's runtime folder empty) waits for a compositor on inotify. Measured
# with the release binary (BIN, else built), a 25-minute session running:
# the daemon's CPU over SECONDS seconds of waiting while FILES files that
# are not a compositor's are made and removed in the runtime folder (other
# programs of the session), then the time from a headless sway's socket
# answering to the daemon holding a connection to it (a new socket among its
# descriptors), over ROUNDS compositors started and killed in turn.
# Usage: [BIN=binary] bench/wayland-wait.sh [ROUNDS] [SECONDS] [FILES]   (markdown for docs/performance.md)
set -euo pipefail
cd "$(dirname "$0")/.."
rounds=${1:-5}
seconds=${2:-20}
files=${3:-2000}
source bench/lib/release.sh
BIN=${BIN:-$(release_retime)}
exec python3 - "$BIN" "$rounds" "$seconds" "$files" <<'PY'
import glob, os, socket, statistics, subprocess, sys, tempfile, time

binary, rounds, seconds, files = os.path.abspath(sys.argv[1]), int(sys.argv[2]), float(sys.argv[3]), int(sys.argv[4])
sys.path.insert(0, "bench/lib")
from headless_sway import HeadlessSway
from retime_daemon import cpu, start_daemon
work = tempfile.mkdtemp()
compositor = HeadlessSway(work)
runtime = compositor.runtime
env = dict(os.environ, HOME=work + "/home", NO_COLOR="1", RETIME_SHIELD_SOCKET=work + "/none.sock",
           XDG_RUNTIME_DIR=runtime, DBUS_SYSTEM_BUS_ADDRESS="unix:path=" + work + "/no-system-bus")
for name in ("XDG_STATE_HOME", "DBUS_SESSION_BUS_ADDRESS", "WAYLAND_DISPLAY"):
    env.pop(name, None)
data = work + "/data"
def retime(*args):
    return subprocess.run([binary, "--data-dir", data, *args], env=env, check=True, stdout=subprocess.PIPE).stdout
def sockets(pid):
    count = 0
    for fd in os.listdir(f"/proc/{pid}/fd"):
        try:
            if os.readlink(f"/proc/{pid}/fd/{fd}").startswith("socket:"): count += 1
        except OSError: pass
    return count
def answering():
    for path in glob.glob(runtime + "/wayland-*"):
        if path.endswith(".lock"): continue
        probe = socket.socket(socket.AF_UNIX)
        try:
            probe.connect(path); return True
        except OSError: pass
        finally: probe.close()
    return False

retime("group", "create", "focus")
retime("start", "focus", "--for", "25m")
daemon = start_daemon(binary, data, env)
time.sleep(2)
before = cpu(daemon.pid)
began = time.time()
for index in range(files):
    # Other programs' files, made and removed at an even pace over the window.
    path = f"{runtime}/pulse-{index}"
    open(path, "w").close(); os.remove(path)
    time.sleep(max(0, began + seconds * (index + 1) / files - time.time()))
time.sleep(max(0, began + seconds - time.time()))
after = cpu(daemon.pid)
connects = []
for round in range(rounds):
    held = sockets(daemon.pid)
    sway = compositor.start()
    while not answering(): time.sleep(0.001)
    up = time.time()
    while sockets(daemon.pid) <= held: time.sleep(0.001)
    connects.append((time.time() - up) * 1000)
    sway.kill(); sway.wait()
    # The daemon follows anew after its backoff (1 s), and waits again.
    for path in glob.glob(runtime + "/wayland-*"): os.remove(path)
    while sockets(daemon.pid) > held: time.sleep(0.01)
    time.sleep(1.5)
retime("stop")
daemon.terminate(); daemon.wait()
subprocess.run(["rm", "-rf", work])
print(f"| daemon CPU over {seconds:.0f} s waiting, {files} other files made and removed | {after - before:.0f} ms |")
print(f"| compositor's socket answering to the daemon connected, median (max) of {rounds} | "
      f"{statistics.median(connects):.1f} ms ({max(connects):.1f} ms) |")
PY
