#!/usr/bin/env bash
# CLI latency on the static release build: `retime start g --for 25m` then
# `retime stop` (the pair), with empty history and with 100,000 past
# sessions; `retime status` alone. Median and p90 of RUNS runs each.
# Usage: bench/cli.sh [RUNS]    (prints a markdown table for docs/performance.md)
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
