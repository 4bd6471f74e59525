#!/usr/bin/env bash
# Cost as the user's data grows (issue 20), on the static release build:
# a data directory with 1,000 groups (one, `big`, of 10,000 targets), 1,000
# schedules and 100,000 past sessions (StoreBenchmark generate-scale); each
# command timed RUNS times (median | p90), `export`'s peak memory, the
# fsyncs of a start + stop pair (strace -c), and an import of 100,000 Watson
# frames over 3,000 projects into an empty data directory.
# Usage: bench/scale.sh [RUNS]   (prints markdown for docs/performance.md)
set -euo pipefail
cd "$(dirname "$0")/.."
runs=${1:-10}
swift build -c release --static-swift-stdlib --product retime >/dev/null
swift build -c release --product StoreBenchmark >/dev/null
retime="$PWD/.build/release/retime"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
data="$work/data"
.build/release/StoreBenchmark generate-scale "$data" >/dev/null
"$retime" --data-dir "$data" config set shield none >/dev/null
r() { echo "$retime --data-dir $data $*"; }
t() { python3 bench/time_runs.py "$runs" "$1" "${@:2}"; }

echo "| command (1,000 groups, 1,000 schedules, a group of 10,000 targets, 100,000 sessions) | median | p90 |"
echo "|---|---|---|"
echo "| status | $(t "" "$(r status)") |"
echo "| group list | $(t "" "$(r group list) >/dev/null") |"
echo "| group show big | $(t "" "$(r group show big) >/dev/null") |"
echo "| schedule list | $(t "" "$(r schedule list) >/dev/null") |"
echo "| schedule add (then remove, untimed) | $(t "$(r schedule remove extra) >/dev/null 2>&1 || true" "$(r schedule add extra --group big --from 09:00 --to 10:00)") |"
echo "| start big + stop (none shield) | $(t "" "$(r start big) && $(r stop)") |"
echo "| log --limit 20 | $(t "" "$(r log --limit 20) >/dev/null") |"
echo "| report | $(t "" "$(r report) >/dev/null") |"
echo "| export | $(t "" "$(r export) >/dev/null") |"
rss=$( { /usr/bin/time -f %M "$retime" --data-dir "$data" export >/dev/null; } 2>&1 )
echo "| export, peak resident memory | $((rss / 1024)) MB | |"

if command -v strace >/dev/null; then
  empty="$work/empty"
  "$retime" --data-dir "$empty" group create g >/dev/null
  for command in "start g" "stop"; do
    # shellcheck disable=SC2086
    n=$(strace -f -c -e trace=fsync,fdatasync "$retime" --data-dir "$empty" $command 2>&1 >/dev/null | awk '/fsync|fdatasync/ {n += $4} END {print n + 0}')
    echo "| fsyncs of \`$command\` on empty data | $n | |"
  done
fi

python3 - "$work/frames" <<'PY'
import json, sys, random
random.seed(7)
frames, start = [], 1_600_000_000
for index in range(100_000):
    begin = start + index * 1_800
    frames.append([begin, begin + 1_500, f"project {index % 3000}", f"{index:032x}", ["t"], begin + 1_500])
json.dump(frames, open(sys.argv[1], "w"), indent=1)
PY
echo "| import --from watson, 100,000 frames, 3,000 projects, empty data | $(t "rm -rf $work/imported" "$retime --data-dir $work/imported import --from watson $work/frames >/dev/null") |"
