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
  if strings -n 6 "$1" | grep -qE '^icudt[0-9]+[lb]|ucal_open|ubrk_open'; then echo yes; else echo no; fi
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
  # The daemon's resident memory once idle (it has nothing due for hours).
  "$binary" --data-dir "$dir" daemon run >/dev/null 2>&1 &
  local pid=$!
  local rss=""
  for _ in $(seq 50); do
    sleep 0.1
    rss=$(awk '/^VmRSS/ {print $2}' "/proc/$pid/status" 2>/dev/null || true)
    grep -q "daemon started" "$dir"/logs/*.log 2>/dev/null && break
  done
  sleep 1
  rss=$(awk '/^VmRSS/ {print $2}' "/proc/$pid/status" 2>/dev/null || echo "?")
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
