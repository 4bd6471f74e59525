#!/usr/bin/env bash
# Daemon benchmarks on the static release build (results for docs/performance.md):
#   - lateness of 50 real events: 25 two-second intervals a second apart, each
#     a start and a session end, measured from the daemon's own record;
#   - CPU time over 60 idle seconds with 20 enabled schedules (perf stat's
#     task-clock over all the daemon's threads; /proc/PID/stat ticks without perf);
#   - resident memory when idle, against a bare Swift program that imports
#     Foundation and sleeps;
#   - computing the next event over 1,000 enabled schedules.
# Usage: bench/daemon.sh [IDLE_SECONDS]   (takes about three minutes)
set -euo pipefail
cd "$(dirname "$0")/.."
idle=${1:-60}
swift build -c release --static-swift-stdlib --product retime >/dev/null
swift build -c release --product ScheduleBenchmark >/dev/null
retime="$PWD/.build/release/retime"
work=$(mktemp -d)
trap 'kill $(jobs -p) 2>/dev/null || true; rm -rf "$work"' EXIT
export TZ=UTC

echo "| what | median | max |"
echo "|---|---|---|"

# Lateness.
data="$work/lateness"
"$retime" --data-dir "$data" group create g >/dev/null
base=$(( $(date +%s) + 5 ))
for i in $(seq 0 24); do
  from=$(date -u -d "@$(( base + 3 * i ))" +%H:%M:%S)
  to=$(date -u -d "@$(( base + 3 * i + 2 ))" +%H:%M:%S)
  "$retime" --data-dir "$data" schedule add "s$i" --group g --from "$from" --to "$to" >/dev/null
done
"$retime" --data-dir "$data" daemon run 2>/dev/null &
daemon=$!
sleep $(( base + 77 - $(date +%s) ))
kill -TERM $daemon; wait $daemon || true
python3 - "$data/events.jsonl" <<'PY'
import json, sys
late = [json.loads(l)["properties"]["lateMs"] for l in open(sys.argv[1])
        if json.loads(l)["name"] in ("interval-started", "session-completed")]
late.sort()
print(f"| lateness of {len(late)} events (starts and session ends) | {late[len(late)//2]} ms | {late[-1]} ms |")
PY

# Idle CPU and memory with 20 schedules far from now.
data="$work/idle"
"$retime" --data-dir "$data" group create g >/dev/null
hour=$(( ($(date -u +%H) + 12) % 24 ))
for i in $(seq 1 20); do
  "$retime" --data-dir "$data" schedule add "s$i" --group g --from "$(printf %02d $hour):$(printf %02d $i):00" \
    --to "$(printf %02d $hour):$(printf %02d $((i + 30))):00" >/dev/null
done
"$retime" --data-dir "$data" daemon run 2>/dev/null &
daemon=$!
sleep 2
if perf stat -e task-clock -p $daemon -- true >/dev/null 2>&1; then
  ms=$(perf stat -x, -e task-clock -p $daemon -- sleep "$idle" 2>&1 | awk -F, '/task-clock/ {print $1}')
  echo "| CPU time in $idle idle seconds, 20 schedules | $ms ms | (perf task-clock) |"
else
  ticks() { awk '{print $14 + $15}' "/proc/$1/stat"; }
  before=$(ticks $daemon); sleep "$idle"; after=$(ticks $daemon)
  echo "| CPU time in $idle idle seconds, 20 schedules | $(( (after - before) * 1000 / $(getconf CLK_TCK) )) ms | (clock ticks) |"
fi
rss=$(awk '/VmRSS/ {print $2}' "/proc/$daemon/status")
kill -TERM $daemon; wait $daemon || true

cat > "$work/bare.swift" <<'SWIFT'
import Foundation
print(Date())
sleep(30)
SWIFT
swiftc -O -static-stdlib "$work/bare.swift" -o "$work/bare" 2>/dev/null
"$work/bare" >/dev/null &
bare=$!
sleep 1
bare_rss=$(awk '/VmRSS/ {print $2}' "/proc/$bare/status")
kill $bare
echo "| resident memory when idle | $(( rss / 1024 )).$(( rss % 1024 * 10 / 1024 )) MiB | bare Foundation program: $(( bare_rss / 1024 )).$(( bare_rss % 1024 * 10 / 1024 )) MiB |"

.build/release/ScheduleBenchmark
