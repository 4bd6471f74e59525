#!/usr/bin/env bash
# History at scale, on the static release build: with 100,000 sessions in
# history, `retime report` over all of it (by day, week and group) and
# `retime log --limit 20`; and `retime import --from watson` of a 100,000-frame
# Watson file into an empty data directory, and `retime undo --dry-run` of
# that import (its 100,000 sessions read back from the undo journal) and an
# `edit` beside 100,000 sessions (journaled, under the data lock). Median and
# p90 of RUNS runs.
# Usage: bench/history.sh [RUNS]   (prints a markdown table for docs/performance.md)
set -euo pipefail
cd "$(dirname "$0")/.."
runs=${1:-20}
swift build -c release --static-swift-stdlib --product retime >/dev/null
swift build -c release --product StoreBenchmark >/dev/null
retime=.build/release/retime
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# Prints "median | p90" in ms of a command run $runs times; the first
# argument is a setup command run (untimed) before each, "" for none.
time_runs() {
  python3 bench/time_runs.py "$runs" "$@"
}

data="$work/data"
"$retime" --data-dir "$data" group create g >/dev/null
.build/release/StoreBenchmark generate-history 100000 "$data/history" >/dev/null

# A Watson frames file as Watson writes it (indent=1), 100,000 frames over ~6 years.
python3 - "$work/frames" <<'PY'
import json, sys, uuid, random
random.seed(7)
start = 1_600_000_000
frames = []
for i in range(100_000):
    s = start + i * 1_800
    frames.append([s, s + 1_500, f"project {i % 12}", uuid.UUID(int=random.getrandbits(128)).hex, ["bench", f"t{i % 5}"], s + 1_500])
json.dump(frames, open(sys.argv[1], "w"), indent=1)
PY

echo "| what (100,000 sessions) | median | p90 |"
echo "|---|---|---|"
echo "| report (by day, all history) | $(time_runs "" "$retime" --data-dir "$data" report) |"
echo "| report --by week | $(time_runs "" "$retime" --data-dir "$data" report --by week) |"
echo "| report --by group | $(time_runs "" "$retime" --data-dir "$data" report --by group) |"
echo "| log --limit 20 | $(time_runs "" "$retime" --data-dir "$data" log --limit 20) |"
echo "| import --from watson, 100,000 frames, empty data | $(time_runs "rm -rf '$work/import'" "$retime" --data-dir "$work/import" import --from watson "$work/frames") |"
echo "| import --from watson again (all already present) | $(time_runs "" "$retime" --data-dir "$work/import" import --from watson "$work/frames") |"
echo "| undo --dry-run of that import (100,000 sessions to remove) | $(time_runs "" "$retime" --data-dir "$work/import" undo --dry-run) |"
"$retime" --data-dir "$data" track g --from "$(date -u -d '-3 hours' +%Y-%m-%dT%H:%M:%SZ)" --to "$(date -u -d '-2 hours' +%Y-%m-%dT%H:%M:%SZ)" >/dev/null
echo "| edit @1 --note (journaled, 100,000 sessions) | $(time_runs "" "$retime" --data-dir "$data" edit @1 --note "n\$RANDOM") |"
