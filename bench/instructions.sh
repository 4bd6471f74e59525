#!/usr/bin/env bash
# Instructions (valgrind's callgrind), not time: on a shared, loaded machine
# the wall clock of a command that `fsync`s swings by 2x between runs, while
# the instructions a binary runs are the same at any load. For each BINARY:
#   - on bench/compare.sh's folder (one group): `status` with a session
#     running, `start`, `stop` and the pair (each counted after a pair and a
#     `status` have run once);
#   - with FOLDER=DIR (a data folder bench/devices.sh's `populate` made)
#     and HOME=DIR (the home of the device to act as): a copy of it, its
#     snapshots removed, each command run once first, then `start`, `stop`,
#     `status`, `log` and `report` counted, as the perf3 and perf4 sections
#     of docs/performance.md counted them;
#   - with PAIRS=N: N `start` + `stop` pairs one
#     after another (on compare.sh's folder, or after the counts above on
#     FOLDER), each counted, and their mean: the steady state of a
#     folder in use, whose session log grows between compactions (a fresh
#     folder's pair is the cheapest one).
# Usage: [FOLDER=... HOME=...] [PAIRS=N] bench/instructions.sh BINARY...
set -euo pipefail
command -v valgrind >/dev/null || { echo "needs valgrind" >&2; exit 1; }
count() { valgrind --tool=callgrind --callgrind-out-file=/dev/null "$@" 2>&1 >/dev/null | awk '/Collected/ {print $4}'; }
for bin in "$@"; do
  work=$(mktemp -d)
  if [ -n "${FOLDER:-}" ]; then
    cp -a "$FOLDER" "$work/data"; rm -rf "$work"/data/devices/*/snapshots
    r() { "$bin" --data-dir "$work/data" "$@"; }
    r status >/dev/null; r log --since 2026-10-01 >/dev/null; r report --since 2026-10-01 >/dev/null
    r start focus --for 25m >/dev/null; r stop >/dev/null
    start=$(count "$bin" --data-dir "$work/data" start focus --for 25m)
    status=$(count "$bin" --data-dir "$work/data" status)
    stop=$(count "$bin" --data-dir "$work/data" stop)
    log=$(count "$bin" --data-dir "$work/data" log --since 2026-10-01)
    report=$(count "$bin" --data-dir "$work/data" report --since 2026-10-01)
    echo "$bin $(basename "$FOLDER"): start $start stop $stop pair $((start + stop)) status $status log $log report $report"
    if [ -n "${PAIRS:-}" ]; then   # then PAIRS more pairs, each counted
      starts=0 stops=0
      for _ in $(seq 1 "$PAIRS"); do
        starts=$((starts + $(count "$bin" --data-dir "$work/data" start focus --for 25m)))
        stops=$((stops + $(count "$bin" --data-dir "$work/data" stop)))
      done
      echo "$bin $(basename "$FOLDER"): $PAIRS pairs, mean start $((starts / PAIRS)) stop $((stops / PAIRS)) pair $(((starts + stops) / PAIRS))"
    fi
  elif [ -n "${PAIRS:-}" ]; then
    export HOME="$work/home"; mkdir -p "$HOME"
    "$bin" --data-dir "$work/data" group create g >/dev/null
    starts=0 stops=0
    for _ in $(seq 1 "$PAIRS"); do
      starts=$((starts + $(count "$bin" --data-dir "$work/data" start g --for 25m)))
      stops=$((stops + $(count "$bin" --data-dir "$work/data" stop)))
    done
    echo "$bin: $PAIRS pairs, mean start $((starts / PAIRS)) stop $((stops / PAIRS)) pair $(((starts + stops) / PAIRS))"
  else
    export HOME="$work/home"; mkdir -p "$HOME"
    r() { "$bin" --data-dir "$work/data" "$@"; }
    r group create g >/dev/null
    r start g --for 25m >/dev/null; r stop >/dev/null
    r start g --for 8h >/dev/null; r status >/dev/null
    status=$(count "$bin" --data-dir "$work/data" status)
    r stop >/dev/null; r status >/dev/null
    start=$(count "$bin" --data-dir "$work/data" start g --for 25m)
    stop=$(count "$bin" --data-dir "$work/data" stop)
    echo "$bin: status $status start $start stop $stop pair $((start + stop))"
  fi
  rm -rf "$work"
done
