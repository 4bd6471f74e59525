#!/usr/bin/env bash
# Daemon benchmarks on the static release build (results for docs/performance.md):
#   - lateness of 50 real events: 25 two-second intervals a second apart, each
#     a start and a session end, measured from the daemon's own record;
#   - CPU time over 60 idle seconds with 20 enabled schedules (schedstat of
#     all the daemon's threads, with /proc/PID/stat ticks as a check);
#   - CPU time over 60 seconds with an interval in progress: 30 s with its
#     session running, 30 s after the user stopped it;
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
# The same binary held 8.9 to 10.0 MiB idle depending on how its pages came
# into the page cache (just written by the linker, or read back from disk),
# since a fault maps what the cache holds around the page. Where we may (as
# root), start from an empty cache, as after a reboot; likewise the bare
# programs below.
drop_caches() { if [ -w /proc/sys/vm/drop_caches ]; then sync; echo 3 > /proc/sys/vm/drop_caches; fi; }
drop_caches
"$retime" --data-dir "$data" daemon run 2>/dev/null &
daemon=$!
sleep 2
# Time on CPU, summed over the daemon's threads from /proc/PID/task/*/schedstat
# (nanoseconds; exact, and needs no perf). The clock ticks of /proc/PID/stat
# (utime + stime, which also keep exited threads' time) as a coarse check.
cpu_ns() { cat /proc/$1/task/*/schedstat | awk '{ns += $1} END {print ns}'; }
ticks() { awk '{print $14 + $15}' "/proc/$1/stat"; }
ns_before=$(cpu_ns $daemon); ticks_before=$(ticks $daemon)
sleep "$idle"
ns_after=$(cpu_ns $daemon); ticks_after=$(ticks $daemon)
cpu_ms=$(awk -v a="$ns_before" -v b="$ns_after" 'BEGIN {printf "%.2f", (b - a) / 1e6}')
tick_ms=$(( (ticks_after - ticks_before) * 1000 / $(getconf CLK_TCK) ))
echo "| CPU time in $idle idle seconds, 20 schedules | $cpu_ms ms | (schedstat; clock ticks: $tick_ms ms) |"
rss=$(awk '/VmRSS/ {print $2}' "/proc/$daemon/status")
# Idle again after work: five one-second sessions, each ended by the daemon,
# then two quiet seconds. What a daemon that has done its job holds.
for _ in 1 2 3 4 5; do
  "$retime" --data-dir "$data" start g --for 1s >/dev/null
  sleep 1.5
done
sleep 2
rss_after=$(awk '/VmRSS/ {print $2}' "/proc/$daemon/status")
ended=$(grep -c '"session-completed"' "$data/events.jsonl" || true)
kill -TERM $daemon; wait $daemon || true

# CPU with an interval in progress: the daemon starts it, then rests until
# its end, with the session running and after the user stops it.
data="$work/interval"
"$retime" --data-dir "$data" group create g --block example.com >/dev/null
"$retime" --data-dir "$data" schedule add now --group g --from "$(date -u -d '-1 min' +%H:%M:%S)" \
  --to "$(date -u -d '+40 min' +%H:%M:%S)" >/dev/null
"$retime" --data-dir "$data" daemon run 2>/dev/null &
daemon=$!
until "$retime" --data-dir "$data" status --json | grep -q '"active" : true\|"active":true'; do sleep 0.2; done
sleep 1
half=$(( idle / 2 ))
ns_before=$(cpu_ns $daemon); sleep "$half"; ns_during=$(cpu_ns $daemon)
"$retime" --data-dir "$data" stop >/dev/null
sleep 1
ns_stopped=$(cpu_ns $daemon); sleep "$half"; ns_after=$(cpu_ns $daemon)
kill -TERM $daemon; wait $daemon || true
during_ms=$(awk -v a="$ns_before" -v b="$ns_during" 'BEGIN {printf "%.2f", (b - a) / 1e6}')
after_ms=$(awk -v a="$ns_stopped" -v b="$ns_after" 'BEGIN {printf "%.2f", (b - a) / 1e6}')
echo "| CPU time with an interval in progress | $during_ms ms in $half s of its session | $after_ms ms in $half s after stop |"

mib() { echo "$(( $1 / 1024 )).$(( $1 % 1024 * 10 / 1024 ))"; }
# The bare program, "imports Foundation and sleeps", in two readings:
# sleeping with Foundation (Thread.sleep), and printing the date with
# Foundation then sleeping with POSIX sleep(3). Each built three ways: as
# swiftc does by default (shared libraries), with the standard library and
# Foundation static (what `swift build --static-swift-stdlib` does), and as
# one static executable, the way retime's release build is linked.
bare_rss() { # SOURCE FLAGS...: the bare program's VmRSS (KiB) one second after it starts
  printf '%b' "$1" > "$work/bare.swift"
  shift
  swiftc -O "$@" "$work/bare.swift" -o "$work/bare" 2>/dev/null
  drop_caches
  "$work/bare" >/dev/null &
  local bare=$!
  sleep 1
  awk '/VmRSS/ {print $2}' "/proc/$bare/status"
  kill $bare
}
bare_rows=""
for program in 'import Foundation\nThread.sleep(forTimeInterval: 30)\n' 'import Foundation\nprint(Date())\nsleep(30)\n'; do
  label=$( [[ $program == *Thread* ]] && echo "Thread.sleep" || echo "print(Date()); sleep(30)")
  shared=$(bare_rss "$program"); static_stdlib=$(bare_rss "$program" -static-stdlib); static=$(bare_rss "$program" -static-executable)
  bare_rows+="| bare program, $label | $(mib $shared) MiB shared | $(mib $static_stdlib) MiB -static-stdlib, $(mib $static) MiB static executable |"$'\n'
done
echo "| resident memory when idle | $(mib $rss) MiB | $(mib $rss_after) MiB after ending $ended sessions |"
printf '%s' "$bare_rows"

.build/release/ScheduleBenchmark
