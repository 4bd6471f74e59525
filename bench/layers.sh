#!/usr/bin/env bash
# The firewall and app layers' benchmarks, on the static release build, as
# root (results for docs/performance.md). The firewall runs in a network
# namespace of its own (never the host's table), with the test suite's DNS
# responder and listeners standing in for a site:
#   - time from `retime start` to the first refused connection (RUNS runs);
#   - time from an app's exec to its termination (50 runs), on the kernel's
#     process events (the service in the host's namespaces, firewall off);
#   - time from a fork of a blocked app (one that ignores SIGTERM) to its
#     child's termination (50 runs);
#   - the service's CPU and wake-ups over 30 s while a block with a site and
#     an app is up and nothing changes (no wake-up before the answers'
#     time-to-live, at least a minute);
#   - the service's CPU over 30 s while another user forks and execs as fast
#     as a shell loop can (`sh -c true`, about 1,000 a second), with an app
#     blocked (every fork reaches the service) and with none (no events).
# Usage: sudo bench/layers.sh [RUNS]   (RETIME=path runs another build;
# ONLY=apps skips the firewall)
set -euo pipefail
cd "$(dirname "$0")/.."
[ "$(id -u)" -eq 0 ] || { echo "run as root: the service runs as root" >&2; exit 1; }
command -v nft >/dev/null || { echo "needs nftables (apt-get install nftables)" >&2; exit 1; }
runs=${1:-20}
if [ -z "${RETIME:-}" ]; then
  swift build -c release --static-swift-stdlib --product retime >/dev/null
fi
retime="${RETIME:-$PWD/.build/release/retime}"
helpers="$PWD/Tests/RetimeCLITests/Helpers"
work=$(mktemp -d)
chmod 0755 "$work"
pids=()
cleanup() { for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null || true; done; wait 2>/dev/null || true; rm -rf "$work"; }
trap cleanup EXIT
user=(setpriv --reuid=65534 --regid=65534 --clear-groups env RETIME_HOME="$work/user" RETIME_SHIELD_SOCKET="$work/shield.sock")
# CPU in ms from /proc/PID/stat (utime + stime, threads that have exited
# included); wake-ups are the service loop's (the main thread's) voluntary
# context switches: each is a return from its poll.
cpu_ms() { awk '{print ($14 + $15) * 1000 / '"$(getconf CLK_TCK)"'}' /proc/$1/stat; }
switches() { awk '/^voluntary_ctxt_switches/ {print $2}' /proc/$1/task/$1/status; }

mkdir -p "$work/user" && chown 65534 "$work/user"
echo "| what | median | max |"
echo "|---|---|---|"
if [ "${ONLY:-}" != apps ]; then
# --- The firewall, in a namespace of its own.
printf '127.0.0.1 localhost\n' > "$work/hosts"
printf 'nameserver 127.0.0.1\n' > "$work/resolv.conf"
echo '{"blocked.test": ["10.0.0.2"], "www.blocked.test": ["10.0.0.2"]}' > "$work/records.json"
unshare --net --mount --propagation private sh -c "
  ip link set lo up; ip addr add 10.0.0.2/32 dev lo
  mount --bind $work/resolv.conf /etc/resolv.conf; mount --bind $work/hosts /etc/hosts
  touch $work/ready; exec sleep 100000" &
pids+=($!)
until [ -e "$work/ready" ]; do sleep 0.02; done
# unshare and then sh exec in place: the background pid holds the namespaces.
holder=${pids[0]}
inside=(nsenter -t "$holder" -n -m)
"${inside[@]}" /usr/bin/python3 "$helpers/dns_responder.py" 127.0.0.1 53 "$work/records.json" 300 >/dev/null & pids+=($!)
"${inside[@]}" /usr/bin/python3 "$helpers/tcp_listener.py" 443 10.0.0.2 >/dev/null & pids+=($!)
"${inside[@]}" "$retime" system run --socket "$work/shield.sock" --state-dir "$work/state" --hosts-file /etc/hosts \
  --firewall nftables --apps off 2>/dev/null & pids+=($!)
until [ -S "$work/shield.sock" ]; do sleep 0.02; done
sleep 0.3
"${inside[@]}" "${user[@]}" "$retime" group create site --block blocked.test >/dev/null

"${inside[@]}" "${user[@]}" /usr/bin/python3 - "$retime" "$runs" <<'PY'
import errno, socket, statistics, subprocess, sys, time
retime, runs = sys.argv[1], int(sys.argv[2])
def refused():
    s = socket.socket(); s.settimeout(1)
    try: s.connect(("10.0.0.2", 443)); return False
    except OSError as e: return e.errno == errno.ECONNREFUSED
    finally: s.close()
times = []
for _ in range(runs):
    t0 = time.monotonic()
    start = subprocess.Popen([retime, "start", "site"], stdout=subprocess.DEVNULL)
    while not refused(): pass
    times.append((time.monotonic() - t0) * 1000)
    start.wait()
    subprocess.run([retime, "stop"], stdout=subprocess.DEVNULL, check=True)
    while refused(): time.sleep(0.001)
print(f"| `start` to the first refused connection (firewall) | {statistics.median(times):.1f} ms | {max(times):.1f} ms |")
PY

# The service's CPU while the block is up and nothing changes.
"${inside[@]}" "${user[@]}" "$retime" start site >/dev/null
service=$(pgrep -f "system run --socket $work/shield.sock" | head -1)
sleep 1
before=$(cpu_ms "$service"); woke=$(switches "$service")
sleep 30
echo "| service CPU over 30 s with a firewalled block up | $(( $(cpu_ms "$service") - before )) ms | $(( $(switches "$service") - woke )) wake-ups |"
"${inside[@]}" "${user[@]}" "$retime" stop >/dev/null
kill "$service"; wait "$service" 2>/dev/null || true
fi

# --- Apps, on the kernel's process events: the host's namespaces, no firewall.
rm -f "$work/shield.sock"
"$retime" system run --socket "$work/shield.sock" --state-dir "$work/state-apps" --hosts-file "$work/hosts-apps" \
  --firewall off --apps on --names hosts 2>/dev/null & pids+=($!)
service=$!
until [ -S "$work/shield.sock" ]; do sleep 0.02; done
mkdir -p "$work/apps" && chmod 755 "$work/apps" && cp /bin/sleep "$work/apps/rtbenchapp" && chmod 755 "$work/apps/rtbenchapp"
"${user[@]}" "$retime" group create games --block app:rtbenchapp >/dev/null
"${user[@]}" "$retime" start games >/dev/null
"${user[@]}" /usr/bin/python3 - "$work/apps/rtbenchapp" <<'PY'
import signal, statistics, subprocess, sys, time
signal.pthread_sigmask(signal.SIG_SETMASK, [])
times = []
for _ in range(50):
    t0 = time.monotonic()
    subprocess.Popen([sys.argv[1], "60"]).wait()
    times.append((time.monotonic() - t0) * 1000)
print(f"| an app's exec to its termination (50 runs) | {statistics.median(times):.1f} ms | {max(times):.1f} ms |")
PY
sleep 1
before=$(cpu_ms "$service"); woke=$(switches "$service")
execs=$(awk '/^processes/ {print $2}' /proc/stat)
sleep 30
echo "| service CPU over 30 s with an app block up, none of its apps starting | $(( $(cpu_ms "$service") - before )) ms | $(( $(switches "$service") - woke )) wake-ups for $(( $(awk '/^processes/ {print $2}' /proc/stat) - execs )) processes started on the machine |"
"${user[@]}" "$retime" stop >/dev/null

# A fork of a blocked app: a copy of python (by a name of its own) that
# ignores SIGTERM, as the issue's reproduction does, forks 50 children; each
# child takes SIGTERM back to its default (blocked across the fork, so none
# is lost) and is reaped when the service's SIGTERM ends it.
cp "$(readlink -f /usr/bin/python3)" "$work/apps/rtbenchpy" && chmod 755 "$work/apps/rtbenchpy"
"${user[@]}" "$retime" group create forks --block app:rtbenchpy >/dev/null
"${user[@]}" "$retime" start forks >/dev/null
"${user[@]}" sh -c "trap '' TERM; exec $work/apps/rtbenchpy -" <<'PY' || echo "| a blocked app's fork to its child's termination | the child was not ended (the app was, after its grace) | - |"
import os, signal, statistics, time
times = []
for _ in range(50):
    signal.pthread_sigmask(signal.SIG_BLOCK, [signal.SIGTERM])
    t0 = time.monotonic()
    child = os.fork()
    if child == 0:
        signal.signal(signal.SIGTERM, signal.SIG_DFL)
        signal.pthread_sigmask(signal.SIG_UNBLOCK, [signal.SIGTERM])
        time.sleep(10)
        os._exit(0)
    os.waitpid(child, 0)
    times.append((time.monotonic() - t0) * 1000)
    signal.pthread_sigmask(signal.SIG_UNBLOCK, [signal.SIGTERM])
print(f"| a blocked app's fork to its child's termination (50 runs) | {statistics.median(times):.1f} ms | {max(times):.1f} ms |", flush=True)
PY
"${user[@]}" "$retime" stop >/dev/null

# The service's CPU while another user (uid 65533) forks and execs in a loop.
fork_load() {
  setpriv --reuid=65533 --regid=65533 --clear-groups sh -c 'while :; do sh -c true; done' & local load=$!
  sleep 1
  local before; before=$(cpu_ms "$service"); local woke; woke=$(switches "$service")
  local started; started=$(awk '/^processes/ {print $2}' /proc/stat)
  sleep 30
  local forks=$(( $(awk '/^processes/ {print $2}' /proc/stat) - started ))
  echo "| service CPU over 30 s, another user forking $(( forks / 30 ))/s, $1 | $(( $(cpu_ms "$service") - before )) ms | $(( $(switches "$service") - woke )) wake-ups |"
  kill "$load"; wait "$load" 2>/dev/null || true
}
"${user[@]}" "$retime" start games >/dev/null
fork_load "an app blocked"
"${user[@]}" "$retime" stop >/dev/null
fork_load "no app blocked"
