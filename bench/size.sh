#!/usr/bin/env bash
# The static release binary's size and what it carries, and `retime status`
# latency: docs/performance.md, "Size". Fails if ICU is back in the binary
# (its data archive `icudtNN`, or the calendar and break-iterator entry
# points), which `import Foundation` in a product module would bring.
# Usage: bench/size.sh [RUNS] [OTHER_BINARY]
#   OTHER_BINARY (say, a release build of an older commit) is measured in
#   the same run, for a before/after table.
set -euo pipefail
cd "$(dirname "$0")/.."
runs=${1:-300}
other=${2:-}
swift build -c release --static-swift-stdlib --product retime >/dev/null
retime=.build/release/retime
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# Prints "yes" if the binary holds ICU.
holds_icu() {
  # A count, not grep -q: under pipefail, grep -q leaving early fails the pipe.
  local found; found=$(strings -n 6 "$1" | grep -cE '^icudt[0-9]+[lb]|ucal_open|ubrk_open' || true)
  if [ "${found:-0}" -gt 0 ]; then echo yes; else echo no; fi
}

# Prints a table row for one binary: size, ICU, status median | p90, daemon RSS.
row() {
  local label=$1 binary=$2
  local bytes; bytes=$(stat -c %s "$binary")
  local dir="$work/data-$label"
  "$binary" --data-dir "$dir" group create g >/dev/null
  "$binary" --data-dir "$dir" start g --for 25m >/dev/null
  local status; status=$(python3 bench/time_runs.py "$runs" "" --direct "$binary" --data-dir "$dir" status)
  "$binary" --data-dir "$dir" stop >/dev/null
  # The daemon's resident memory once idle (nothing is due for hours):
  # read two seconds after it started.
  "$binary" --data-dir "$dir" daemon run >/dev/null 2>&1 &
  local pid=$!
  sleep 2
  local rss; rss=$(awk '/^VmRSS/ {print $2}' "/proc/$pid/status" 2>/dev/null || echo 0)
  kill -TERM "$pid" 2>/dev/null || true
  wait "$pid" 2>/dev/null || true
  printf '| %s | %.1f MB | %s | %s | %s MB |\n' "$label" "$(echo "$bytes / 1000000" | bc -l)" "$(holds_icu "$binary")" "$status" \
    "$(echo "scale=1; ${rss:-0} / 1024" | bc -l)"
}

echo "| binary | size (stripped) | ICU | status median | p90 | daemon idle RSS |"
echo "|---|---|---|---|---|---|"
if [ -n "$other" ]; then row "other" "$other"; fi
row "this build" "$retime"
if [ "$(holds_icu "$retime")" = yes ]; then
  echo "ICU is in the release binary: a product module imports Foundation again (see FoundationImportTests)" >&2
  exit 1
fi
