#!/usr/bin/env bash
# Before and after: the static release build of REV (default: main's first
# parent, HEAD~1) against the working tree's, on what a redesign must not
# make slower or bigger: `retime status` with a session running, the
# `start` + `stop` pair, and the daemon's resident memory when idle with 20
# schedules. The two binaries take turns, ROUNDS rounds of RUNS runs each,
# so a change in the machine's load falls on both alike.
# Usage: [BEFORE=REV's binary] [AFTER=this tree's binary] bench/compare.sh [REV] [RUNS] [ROUNDS]   (markdown for docs/performance.md)
set -euo pipefail
cd "$(dirname "$0")/.."
rev=${1:-HEAD~1}
runs=${2:-100}
rounds=${3:-3}
work=$(mktemp -d)
trap 'git worktree remove --force "$work/before-tree" >/dev/null 2>&1 || true; rm -rf "$work"' EXIT

if [ -n "${AFTER:-}" ]; then   # the working tree's binary, already built
  cp "$AFTER" "$work/after"
else
  swift build -c release --static-swift-stdlib --product retime >/dev/null
  cp .build/release/retime "$work/after"
fi
if [ -n "${BEFORE:-}" ]; then   # REV's binary, already built
  cp "$BEFORE" "$work/before"
else
  git worktree add --detach "$work/before-tree" "$rev" >/dev/null 2>&1
  (cd "$work/before-tree" && swift build -c release --static-swift-stdlib --product retime >/dev/null)
  cp "$work/before-tree/.build/release/retime" "$work/before"
fi

# Prints the median in ms of RUNS runs of the words, started directly.
median() { python3 bench/time_runs.py "$runs" "" --direct "$@" | awk '{print $1}'; }

for which in before after; do
  "$work/$which" --data-dir "$work/data-$which" group create g >/dev/null
  mkdir -p "$work/status-$which"
  "$work/$which" --data-dir "$work/status-$which" group create g >/dev/null
  "$work/$which" --data-dir "$work/status-$which" start g --for 8h >/dev/null
done
declare -A status pair
for round in $(seq 1 "$rounds"); do
  for which in before after; do
    bin="$work/$which"
    status[$which]+="$(median "$bin" --data-dir "$work/status-$which" status) "
    pair[$which]+="$(median "$bin" --data-dir "$work/data-$which" start g --for 25m '&&' "$bin" --data-dir "$work/data-$which" stop) "
  done
done
best() { tr ' ' '\n' | grep . | sort -n | head -1; }   # the least disturbed round

# The daemon's VmRSS two seconds after it starts, with 20 schedules (all far
# from now), from an empty page cache where we may (as bench/daemon.sh).
idle_rss() { # BINARY DIR
  local hour=$(( ($(date -u +%H) + 12) % 24 ))
  "$1" --data-dir "$2" group create d >/dev/null
  for i in $(seq 1 20); do
    "$1" --data-dir "$2" schedule add "s$i" --group d --from "$(printf %02d $hour):$(printf %02d $i):00" \
      --to "$(printf %02d $hour):$(printf %02d $((i + 30))):00" >/dev/null
  done
  if [ -w /proc/sys/vm/drop_caches ]; then sync; echo 3 > /proc/sys/vm/drop_caches; fi
  "$1" --data-dir "$2" daemon run 2>/dev/null &
  local daemon=$!
  sleep 2
  awk '/VmRSS/ {printf "%.1f", $2 / 1024}' "/proc/$daemon/status"
  kill -TERM $daemon; wait $daemon || true
}

echo "| what | before ($(git rev-parse --short "$rev")) | after ($(git rev-parse --short HEAD)$(git diff --quiet HEAD -- domain adapters cli Package.swift || echo '+changes')) |"
echo "|---|---|---|"
echo "| \`status\`, a session running (median, best of $rounds rounds of $runs) | $(echo "${status[before]}" | best) ms | $(echo "${status[after]}" | best) ms |"
echo "| \`start\` + \`stop\` (median, best of $rounds rounds of $runs) | $(echo "${pair[before]}" | best) ms | $(echo "${pair[after]}" | best) ms |"
echo "| daemon resident memory, idle, 20 schedules | $(idle_rss "$work/before" "$work/daemon-before") MiB | $(idle_rss "$work/after" "$work/daemon-after") MiB |"
echo "| release binary, stripped | $(( $(stat -c %s "$work/before") / 1024 )) KiB | $(( $(stat -c %s "$work/after") / 1024 )) KiB |"
