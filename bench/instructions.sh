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
#     of docs/performance.md counted them.
# Usage: [FOLDER=... HOME=...] bench/instructions.sh BINARY...
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
