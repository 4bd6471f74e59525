#!/usr/bin/env bash
# CLI latency on the static release build: `retime start g --for 25m` then
# `retime stop` (the pair), with empty history and with 100,000 past
# sessions; `retime status` alone. Median and p90 of RUNS runs each.
# Two tables: through `bash -c` (as a script would run them), then started
# directly with no shell (as `hyperfine -N` would), with two more rows: the
# pair on a RAM file system, where fsync costs nothing (what durability
# costs), and Timewarrior's `timew start` + `timew stop` if `timew` is
# installed (apt-get install timewarrior), under the same harness.
# Usage: bench/cli.sh [RUNS]    (prints markdown tables for docs/performance.md)
set -euo pipefail
cd "$(dirname "$0")/.."
runs=${1:-200}
swift build -c release --static-swift-stdlib --product retime >/dev/null
swift build -c release --product StoreBenchmark >/dev/null
retime=.build/release/retime
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# Prints "median | p90" in ms of a command run $runs times.
time_runs() {
  python3 bench/time_runs.py "$runs" "" "$@"
}

# The harness's own cost (bash -c true), measured first; each row also
# shows its median less this, the part that is retime's.
harness=$(time_runs true)
harness_ms=${harness%% ms*}
row() { # LABEL COMMAND...: a table row for the command
  local label=$1; shift
  local times; times=$(time_runs "$@")
  local net; net=$(awk -v m="${times%% ms*}" -v h="$harness_ms" 'BEGIN {printf "%.2f", m - h}')
  echo "| $label | $times | $net ms |"
}

echo "| what | median | p90 | median less the harness |"
echo "|---|---|---|---|"
echo "| (bash -c true: the harness's own cost, included in the rows below) | $harness | - |"
row "retime --version" "$retime" --version
for size in 0 100000; do
  dir="$work/data-$size"
  "$retime" --data-dir "$dir" group create g >/dev/null
  if [ "$size" -gt 0 ]; then
    .build/release/StoreBenchmark generate-history "$size" "$dir/history" >/dev/null
  fi
  row "start + stop, $size sessions in history" "$retime" --data-dir "$dir" start g --for 25m '&&' "$retime" --data-dir "$dir" stop
  "$retime" --data-dir "$dir" start g --for 25m >/dev/null
  row "status, $size sessions in history" "$retime" --data-dir "$dir" status
  "$retime" --data-dir "$dir" stop >/dev/null
done

# The same, started directly.
direct() { python3 bench/time_runs.py "$runs" "" --direct "$@"; }
pair() { # DIR: the pair's words for direct()
  echo "$retime" --data-dir "$1" start g --for 25m '&&' "$retime" --data-dir "$1" stop
}
echo
echo "| started directly (no shell) | median | p90 |"
echo "|---|---|---|"
echo "| /bin/true (the harness's own cost, once per process) | $(direct /bin/true) |"
echo "| retime --version | $(direct "$retime" --version) |"
for size in 0 100000; do
  # shellcheck disable=SC2046 # the pair's words are split on purpose
  echo "| start + stop, $size sessions in history | $(direct $(pair "$work/data-$size")) |"
done
if [ -d /dev/shm ] && [ -w /dev/shm ]; then
  ram=$(mktemp -d /dev/shm/retime-bench.XXXXXX)
  trap 'rm -rf "$work" "$ram"' EXIT
  "$retime" --data-dir "$ram" group create g >/dev/null
  # shellcheck disable=SC2046
  echo "| start + stop, 0 sessions, data on tmpfs (fsync is free) | $(direct $(pair "$ram")) |"
fi
"$retime" --data-dir "$work/data-0" start g --for 25m >/dev/null
echo "| status | $(direct "$retime" --data-dir "$work/data-0" status) |"
"$retime" --data-dir "$work/data-0" stop >/dev/null
if command -v timew >/dev/null 2>&1; then
  export TIMEWARRIORDB="$work/timew"
  mkdir -p "$TIMEWARRIORDB" && touch "$TIMEWARRIORDB/timewarrior.cfg"
  # Each run tracks its own minute in 2000: timew refuses to stop an
  # interval in the second it started.
  echo "| timew start + timew stop (Timewarrior $(timew --version), empty data) | $(direct timew start '{from}' g '&&' timew stop '{to}') |"
fi
