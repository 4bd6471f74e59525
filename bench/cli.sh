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

baseline() { # the cost of bash -c itself, subtracted by the reader
  time_runs true
}

echo "| what | median | p90 |"
echo "|---|---|---|"
echo "| (bash -c true: the harness's own cost, included below) | $(baseline) |"
echo "| retime --version | $(time_runs "$retime" --version) |"
for size in 0 100000; do
  dir="$work/data-$size"
  "$retime" --data-dir "$dir" group create g >/dev/null
  if [ "$size" -gt 0 ]; then
    .build/release/StoreBenchmark generate-history "$size" "$dir/history" >/dev/null
  fi
  echo "| start + stop, $size sessions in history | $(time_runs "$retime" --data-dir "$dir" start g --for 25m '&&' "$retime" --data-dir "$dir" stop) |"
  "$retime" --data-dir "$dir" start g --for 25m >/dev/null
  echo "| status, $size sessions in history | $(time_runs "$retime" --data-dir "$dir" status) |"
  "$retime" --data-dir "$dir" stop >/dev/null
done
