#!/usr/bin/env bash
# History reads with amendments from several devices, on the static release
# build: `retime log --limit 20` and `retime report` (by day, by tag) over
# 100,000 sessions with no amendments, with 1,000 edits spread over two
# devices' amendments.jsonl (per-field edit lines: the note, or a tag), and
# with 100,000 deletions in one batch line (an undone import). With
# BASELINE=path/to/retime, the same rows for that binary too, run in turns
# (an older retime reads the edit lines as whole revisions).
# Usage: bench/amendments.sh [RUNS]   (markdown rows for docs/performance.md)
set -euo pipefail
cd "$(dirname "$0")/.."
runs=${1:-15}
if [ -z "${SKIP_BUILD:-}" ]; then
  swift build -c release --static-swift-stdlib --product retime >/dev/null
  swift build -c release --product StoreBenchmark >/dev/null
fi
retime=$PWD/.build/release/retime
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

time_runs() {
  python3 bench/time_runs.py "$runs" "" "$@"
}

for kind in none edits deletions; do
  data="$work/$kind"
  "$retime" --data-dir "$data" group create g >/dev/null
  .build/release/StoreBenchmark generate-history 100000 "$data/history" >/dev/null
  python3 - "$data/history" "$kind" <<'PY'
import glob, os, sys
history, kind = sys.argv[1], sys.argv[2]
lines = []
for path in sorted(glob.glob(history + "/*/*.jsonl")):
    lines += open(path).read().splitlines()
devices = ["0b9c6a84-0000-4000-8000-00000000000a", "0b9c6a84-0000-4000-8000-00000000000b"]
ms = 1_900_000_000_000
if kind == "edits":
    for n, line in enumerate(lines[::100][:1000]):
        device = devices[n % 2]
        os.makedirs(f"{history}/{device}", exist_ok=True)
        with open(f"{history}/{device}/amendments.jsonl", "a") as out:
            if n % 2:
                out.write(f'{{"at":"{ms + n}-0-{device}","changed":["note"],"revisedAt":"2030-03-17T17:46:40Z","tagsAdded":[],"tagsRemoved":[],' + line[1:].replace('"tags":[', '"note":"edited","tags":[') + "\n")
            else:
                out.write(f'{{"at":"{ms + n}-0-{device}","changed":[],"revisedAt":"2030-03-17T17:46:40Z","tagsAdded":["t{n}"],"tagsRemoved":[],' + line[1:].replace('"tags":[', f'"tags":["t{n}",').replace(',]', ']') + "\n")
elif kind == "deletions":
    import re
    ids = [re.search(r'"id":"([^"]+)"', line).group(1) for line in lines]
    device = devices[0]
    os.makedirs(f"{history}/{device}", exist_ok=True)
    with open(f"{history}/{device}/amendments.jsonl", "w") as out:
        out.write('{"amendments":[' + ",".join(f'{{"deleted":true,"id":"{i}","at":"{ms}-0-{device}","revisedAt":"2030-03-17T17:46:40Z"}}' for i in ids[:100000]) + "]}\n")
PY
done

echo "| amendments (100,000 sessions) | command | binary | median | p90 |"
echo "|---|---|---|---|---|"
for kind in none edits deletions; do
  data="$work/$kind"
  for command in "log --limit 20" "report" "report --by tag"; do
    for binary in "$retime" ${BASELINE:+"$BASELINE"}; do
      name=$([ "$binary" = "$retime" ] && echo "this" || echo "baseline")
      echo "| $kind | $command | $name | $(time_runs "$binary" --data-dir "$data" $command) |"
    done
  done
done
