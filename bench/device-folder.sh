#!/usr/bin/env bash
# What the per-device folder costs a command (issue 31): the syscalls of
# `retime status` (all, and those on the data folder) and its wall time over
# RUNS runs, for BINARY (default: this tree's debug build) and, if given,
# BEFORE (a binary of before the machine's files moved into devices/<id>/).
# Usage: [BEFORE=path] bench/device-folder.sh [RUNS]   (needs strace)
set -euo pipefail
cd "$(dirname "$0")/.."
runs=${1:-30}
binary=${BINARY:-.build/debug/retime}
measure() {
  local bin=$1 work
  work=$(mktemp -d)
  export HOME=$work/home
  mkdir -p "$HOME"
  "$bin" --data-dir "$work/data" group create work >/dev/null
  "$bin" --data-dir "$work/data" config set shield none >/dev/null
  "$bin" --data-dir "$work/data" status >/dev/null   # the first use moves and makes what it needs
  strace -f -qq -o "$work/trace" "$bin" --data-dir "$work/data" status >/dev/null
  local start end
  start=$(date +%s%N)
  for _ in $(seq 1 "$runs"); do "$bin" --data-dir "$work/data" status >/dev/null; done
  end=$(date +%s%N)
  printf '| %s | %s | %s | %s ms |\n' "$bin" "$(wc -l <"$work/trace")" "$(grep -c "$work/data" "$work/trace")" \
    "$(( (end - start) / runs / 1000000 ))"
  rm -rf "$work"
}
echo "| binary | syscalls of status | on the data folder | wall time per status |"
echo "|---|---|---|---|"
[ -n "${BEFORE:-}" ] && measure "$BEFORE"
measure "$binary"
