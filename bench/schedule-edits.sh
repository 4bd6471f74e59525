#!/usr/bin/env bash
# `schedule add` + `schedule remove` on bench/scale.sh's data (1,000
# groups, one of 10,000 targets, 1,000 schedules, 100,000 sessions), for
# each BINARY on its own copy of the data, the binaries taking turns run by
# run, so a change in the machine's load falls on all alike (issue 45).
# Each run is the pair started directly (no shell), as time_runs.py
# --direct does; prints each binary's median and p90 over RUNS runs.
# Usage: [RUNS=20] bench/schedule-edits.sh BINARY...
set -euo pipefail
cd "$(dirname "$0")/.."
[ $# -ge 1 ] || { echo "usage: [RUNS=20] bench/schedule-edits.sh BINARY..." >&2; exit 2; }
swift build -c release --product StoreBenchmark >/dev/null
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
.build/release/StoreBenchmark generate-scale "$work/data" >/dev/null
export HOME="$work/home"   # one device id for all: the data's migration is done once
mkdir -p "$HOME"
"$1" --data-dir "$work/data" config set shield none >/dev/null
index=0
for bin in "$@"; do
  cp -a "$work/data" "$work/data-$index"
  # Once untimed: snapshots made, the page cache warm.
  "$bin" --data-dir "$work/data-$index" schedule add extra --group big --from 09:00 --to 10:00 >/dev/null
  "$bin" --data-dir "$work/data-$index" schedule remove extra >/dev/null
  index=$((index + 1))
done
python3 - "${RUNS:-20}" "$work" "$@" <<'PY'
import subprocess, sys, time
runs, work, binaries = int(sys.argv[1]), sys.argv[2], sys.argv[3:]
samples = [[] for _ in binaries]
for _ in range(runs):
    for index, binary in enumerate(binaries):
        data = f"{work}/data-{index}"
        start = time.perf_counter()
        subprocess.run([binary, "--data-dir", data, "schedule", "add", "extra", "--group", "big", "--from", "09:00", "--to", "10:00"],
                       check=True, stdout=subprocess.DEVNULL)
        subprocess.run([binary, "--data-dir", data, "schedule", "remove", "extra"], check=True, stdout=subprocess.DEVNULL)
        samples[index].append((time.perf_counter() - start) * 1000)
for binary, times in zip(binaries, samples):
    times.sort()
    print(f"| {binary} | {times[len(times) // 2]:.1f} ms | {times[int(len(times) * 0.9)]:.1f} ms |")
PY
