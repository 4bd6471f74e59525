#!/usr/bin/env bash
# Focus cycles' phase edges (issue 32; results for docs/performance.md):
#   - lateness of EDGES phase edges (default 100: a --cycle 1s/1s with
#     EDGES/2 + 1 rounds, each break a lowering and a raising of a
#     hosts-file block), twice: when the daemon handled the edge (its own
#     record, `lateMs` of `phase-started` in events.jsonl), and when a
#     poller saw the hosts file change (every 1 ms, what a user would see);
#   - the daemon's CPU while the cycle runs, against the same daemon at rest
#     for as long (schedstat of all its threads, nanoseconds).
# The hosts file is a temporary one: the machine's /etc/hosts is never touched.
# Usage: bench/cycle-edges.sh [EDGES]   (takes EDGES + 40 seconds or so)
#        RETIME=path/to/retime bench/cycle-edges.sh   (another build)
set -euo pipefail
cd "$(dirname "$0")/.."
edges=${1:-100}
rounds=$(( edges / 2 + 1 ))
if [ -z "${RETIME:-}" ]; then
  swift build -c release --static-swift-stdlib --product retime >/dev/null
  RETIME="$PWD/.build/release/retime"
fi
work=$(mktemp -d)
daemon=""
trap '[ -n "$daemon" ] && kill "$daemon" 2>/dev/null; rm -rf "$work"' EXIT
export TZ=UTC HOME="$work/home" RETIME_SHIELD_SOCKET="$work/no-service.sock"
unset XDG_STATE_HOME DBUS_SESSION_BUS_ADDRESS XDG_RUNTIME_DIR RETIME_HOME
data="$work/data"
mkdir -m 700 "$data"
retime() { "$RETIME" --data-dir "$data" "$@"; }
hosts="$work/hosts"
printf '127.0.0.1 localhost\n' > "$hosts"
retime group create g --block example.com >/dev/null
retime config set shield.hostsFile "$hosts" >/dev/null
retime config set shield hosts >/dev/null
# The binary itself in the background (not the function): $! is the daemon.
"$RETIME" --data-dir "$data" daemon run 2>/dev/null &
daemon=$!
until retime daemon status >/dev/null 2>&1; do sleep 0.1; done
sleep 2
cpu_ns() { cat /proc/$1/task/*/schedstat | awk '{ns += $1} END {print ns}'; }
# Clock ticks of /proc/PID/stat (utime + stime, which keep exited threads'
# time too, where schedstat's sum loses it), in ms, as a coarse check.
ticks_ms() { awk -v hz="$(getconf CLK_TCK)" '{print ($14 + $15) * 1000 / hz}' "/proc/$1/stat"; }
length=$(( rounds + rounds - 1 ))

# At rest for as long as the cycle will run.
before=$(cpu_ns $daemon); ticks=$(ticks_ms $daemon)
sleep "$length"
rest_ns=$(( $(cpu_ns $daemon) - before )); rest_ticks=$(( $(ticks_ms $daemon) - ticks ))

# The cycle, with a poller that notes when the hosts file changes.
python3 - "$hosts" "$work/seen" "$(( length + 5 ))" <<'PY' &
import sys, time
path, out, seconds = sys.argv[1], sys.argv[2], float(sys.argv[3])
def blocked():
    with open(path) as f: return "example.com" in f.read()
state, seen, end = blocked(), [], time.time() + seconds
while time.time() < end:
    now = blocked()
    if now != state: seen.append((time.time(), now)); state = now
    time.sleep(0.001)
with open(out, "w") as f:
    for at, up in seen: f.write(f"{at:.6f} {int(up)}\n")
PY
poller=$!
sleep 0.5
start_json=$(retime start g --cycle 1s/1s --rounds "$rounds" --json)
before=$(cpu_ns $daemon); ticks=$(ticks_ms $daemon)
sleep $(( length + 1 ))
cycle_ns=$(( $(cpu_ns $daemon) - before )); cycle_ticks=$(( $(ticks_ms $daemon) - ticks ))
wait $poller
kill -TERM $daemon; wait $daemon || true; daemon=""

python3 - "$data" "$work/seen" "$start_json" "$rest_ns" "$cycle_ns" "$length" "$rest_ticks" "$cycle_ticks" <<'PY'
import glob, json, sys
from datetime import datetime
data, seen_path, start_json, rest_ns, cycle_ns, length = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4]), int(sys.argv[5]), sys.argv[6]
rest_ticks, cycle_ticks = sys.argv[7], sys.argv[8]
def stamp(text):
    whole, frac = text.rstrip("Z").split(".") if "." in text else (text.rstrip("Z"), "0")
    return datetime.strptime(whole, "%Y-%m-%dT%H:%M:%S").replace(tzinfo=__import__("datetime").timezone.utc).timestamp() + float("0." + frac)
events = [json.loads(l) for f in glob.glob(data + "/**/events.jsonl", recursive=True) for l in open(f)]
handled = sorted(e["properties"]["lateMs"] for e in events if e["name"] == "phase-started" and "lateMs" in e["properties"])
start = stamp(json.loads(start_json)["session"]["startedAt"])
# The first change is the start's raise; then edges at 1 s, 2 s, ... after
# the start: lowered at odd seconds, raised at even ones, lowered at the end.
seen = [line.split() for line in open(seen_path)][1:]
late = sorted(round((float(at) - (start + i + 1)) * 1000, 1) for i, (at, _) in enumerate(seen))
def row(name, values, unit="ms"):
    values = sorted(values)
    return f"| {name} | {values[len(values)//2]} {unit} | {values[-1]} {unit} |" if values else f"| {name} | none | none |"
print("| what | median | max |")
print("|---|---|---|")
print(row(f"phase edges handled by the daemon ({len(handled)}, its own record)", handled))
print(row(f"hosts file seen changed after the edge ({len(late)} edges, 1 ms poll)", late))
print(f"| daemon CPU over {length} s (schedstat) | {cycle_ns / 1e6:.2f} ms with the cycle running | {rest_ns / 1e6:.2f} ms at rest |")
print(f"| daemon CPU over {length} s (clock ticks) | {cycle_ticks} ms with the cycle running | {rest_ticks} ms at rest |")
PY
