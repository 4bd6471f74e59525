#!/usr/bin/env bash
# Focus cycles' phase edges (issue 32; results for docs/performance.md):
#   - lateness of EDGES phase edges (default 100: sessions of --cycle 1s/1s
#     --rounds 26 one after another, each with 25 breaks, a lowering and a
#     raising of a hosts-file block each, and its end), twice: when the
#     daemon handled the edge (its own record, `lateMs` of `phase-started`
#     in events.jsonl), and when a poller saw the hosts file change (every
#     1 ms, what a user would see);
#   - the daemon's CPU while those cycles run, against the same daemon at
#     rest for as long, and inside the work phase of a --cycle 25m/5m
#     (schedstat of all its threads, nanoseconds; clock ticks as a check).
# The hosts file is a temporary one: the machine's /etc/hosts is never touched.
# Usage: bench/cycle-edges.sh [EDGES]   (takes about 3 x EDGES seconds)
#        RETIME=path/to/retime bench/cycle-edges.sh   (another build)
set -euo pipefail
cd "$(dirname "$0")/.."
edges=${1:-100}
rounds=26
sessions=$(( (edges + 49) / 50 ))
source bench/lib/release.sh
RETIME=${RETIME:-$(release_retime)}
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
total=$(( sessions * (length + 2) ))

# At rest for as long as the cycle will run.
before=$(cpu_ns $daemon); ticks=$(ticks_ms $daemon)
sleep "$total"
rest_ns=$(( $(cpu_ns $daemon) - before )); rest_ticks=$(( $(ticks_ms $daemon) - ticks ))

# The cycle, with a poller that notes when the hosts file changes.
python3 bench/lib/hosts_changes.py "$hosts" "$work/seen" "$(( total + 3 ))" &
poller=$!
sleep 0.5
before=$(cpu_ns $daemon); ticks=$(ticks_ms $daemon)
: > "$work/starts"
for _ in $(seq "$sessions"); do
  retime start g --cycle 1s/1s --rounds "$rounds" --json >> "$work/starts"
  echo >> "$work/starts"
  sleep $(( length + 2 ))
done
cycle_ns=$(( $(cpu_ns $daemon) - before )); cycle_ticks=$(( $(ticks_ms $daemon) - ticks ))
wait $poller
# A cycle as people run it: CPU inside a 25-minute work phase, as long as at rest.
retime start g --cycle 25m/5m >/dev/null
sleep 1
before=$(cpu_ns $daemon); ticks=$(ticks_ms $daemon)
sleep "$total"
phase_ns=$(( $(cpu_ns $daemon) - before )); phase_ticks=$(( $(ticks_ms $daemon) - ticks ))
retime stop >/dev/null
kill -TERM $daemon; wait $daemon || true; daemon=""

python3 - "$data" "$work/seen" "$work/starts" "$rest_ns" "$cycle_ns" "$total" "$rest_ticks" "$cycle_ticks" "$length" "$phase_ns" "$phase_ticks" <<'PY'
import glob, json, sys
from datetime import datetime
data, seen_path, starts_path, rest_ns, cycle_ns, total = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4]), int(sys.argv[5]), sys.argv[6]
length = int(sys.argv[9])
phase_ns, phase_ticks = int(sys.argv[10]), sys.argv[11]
rest_ticks, cycle_ticks = sys.argv[7], sys.argv[8]
def stamp(text):
    whole, frac = text.rstrip("Z").split(".") if "." in text else (text.rstrip("Z"), "0")
    return datetime.strptime(whole, "%Y-%m-%dT%H:%M:%S").replace(tzinfo=__import__("datetime").timezone.utc).timestamp() + float("0." + frac)
events = [json.loads(l) for f in glob.glob(data + "/**/events.jsonl", recursive=True) for l in open(f)]
handled = sorted(e["properties"]["lateMs"] for e in events if e["name"] == "phase-started" and "lateMs" in e["properties"])
starts = [stamp(json.loads(l)["session"]["startedAt"]) for l in open(starts_path) if l.strip()]
# Each session's edges are at 1 s, 2 s, ... after its start: lowered at odd
# seconds, raised at even ones, lowered at its end. A change seen within
# half a second of a start is that start's raise, not an edge.
due = sorted(s + i for s in starts for i in range(1, length + 1))
seen = [float(line.split()[0]) for line in open(seen_path)]
seen = [at for at in seen if all(abs(at - s) > 0.5 for s in starts)]
late = sorted(round((at - edge) * 1000, 1) for at, edge in zip(seen, due))
if len(seen) != len(due): print(f"warning: {len(seen)} changes seen for {len(due)} edges")
def row(name, values, unit="ms"):
    values = sorted(values)
    return f"| {name} | {values[len(values)//2]} {unit} | {values[-1]} {unit} |" if values else f"| {name} | none | none |"
print("| what | median | max |")
print("|---|---|---|")
print(row(f"phase edges handled by the daemon ({len(handled)}, its own record)", handled))
print(row(f"hosts file seen changed after the edge ({len(late)} edges, 1 ms poll)", late))
print(f"| daemon CPU over {total} s (schedstat) | {cycle_ns / 1e6:.2f} ms with cycles running | {rest_ns / 1e6:.2f} ms at rest |")
print(f"| daemon CPU over {total} s (clock ticks) | {cycle_ticks} ms with cycles running | {rest_ticks} ms at rest |")
print(f"| daemon CPU over {total} s inside a --cycle 25m/5m work phase | {phase_ns / 1e6:.2f} ms (schedstat) | {phase_ticks} ms (clock ticks) |")
PY
