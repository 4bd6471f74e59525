#!/usr/bin/env bash
# Issue 31: does sharing a data folder between devices slow the commands
# down? The same work (groups and their edits, schedules, settings, tracked
# sessions and edits of them) made by one device with REV's binary (default:
# the commit before issue 31, 3ddfcb3), and by this tree's binary spread
# over 1, 2 and 10 devices' logs (each device a home of its own, so an id of
# its own, on one data folder). Measured: `start` + `stop`, `status` with a
# session running, `log` and `report`, each the median of RUNS runs,
# the binaries taking turns over ROUNDS rounds (the best round kept).
# Usage: [BEFORE=binary] [AFTER=binary] bench/devices.sh [REV] [RUNS] [ROUNDS]   (markdown for docs/performance.md)
set -euo pipefail
cd "$(dirname "$0")/.."
rev=${1:-3ddfcb3}
runs=${2:-40}
rounds=${3:-3}
work=$(mktemp -d)
trap 'git worktree remove --force "$work/before-tree" >/dev/null 2>&1 || true; rm -rf "$work"' EXIT

if [ -n "${AFTER:-}" ]; then cp "$AFTER" "$work/after"; else
  swift build -c release --static-swift-stdlib --product retime >/dev/null
  cp .build/release/retime "$work/after"
fi
if [ -n "${BEFORE:-}" ]; then cp "$BEFORE" "$work/before"; else
  git worktree add --detach "$work/before-tree" "$rev" >/dev/null 2>&1
  (cd "$work/before-tree" && swift build -c release --static-swift-stdlib --product retime >/dev/null)
  cp "$work/before-tree/.build/release/retime" "$work/before"
fi

groups=20 sessions=400 edits=40
# Makes the work of DEVICES devices on the folder DIR with BINARY: device d
# makes its share of the groups (a create, five targets, a rename each), a
# schedule, a setting, its share of the tracked sessions and of their edits.
populate() { # BINARY DIR DEVICES
  local bin=$1 dir=$2 devices=$3
  for d in $(seq 1 "$devices"); do
    export HOME="$work/home-$(basename "$dir")-$d"
    mkdir -p "$HOME"
    for g in $(seq "$d" "$devices" "$groups"); do
      "$bin" --data-dir "$dir" group create "g$g" >/dev/null
      for t in 1 2 3 4 5; do "$bin" --data-dir "$dir" group block "g$g" "site$g-$t.example" >/dev/null; done
      "$bin" --data-dir "$dir" group rename "g$g" "group$g" >/dev/null
    done
    "$bin" --data-dir "$dir" schedule add "s$d" --group "group$d" --from 03:00 --to 04:00 >/dev/null
    "$bin" --data-dir "$dir" config set notify off >/dev/null
    local ids=()
    for s in $(seq "$d" "$devices" "$sessions"); do
      local day=$(( s % 28 + 1 )) hour=$(( s % 10 + 8 ))
      ids+=("$("$bin" --data-dir "$dir" track "group$d" --from "2026-10-$(printf %02d $day)T$(printf %02d $hour):00:00Z" \
        --to "2026-10-$(printf %02d $day)T$(printf %02d $hour):25:00Z" --json | python3 -c 'import json,sys; print(json.load(sys.stdin)["session"]["id"])')")
    done
    for e in $(seq "$d" "$devices" "$edits"); do
      "$bin" --data-dir "$dir" edit "${ids[$(( e % ${#ids[@]} ))]}" --note "edit $e" >/dev/null
    done
  done
  "$bin" --data-dir "$dir" group create focus >/dev/null
}

populate "$work/before" "$work/before-1" 1
for n in 1 2 10; do populate "$work/after" "$work/after-$n" "$n"; done

median() { python3 bench/time_runs.py "$runs" "" --direct "$@" | awk '{print $1}'; }
declare -A pair status log report
for round in $(seq 1 "$rounds"); do
  for which in before-1 after-1 after-2 after-10; do
    bin="$work/${which%-*}" dir="$work/$which"
    export HOME="$work/home-$which-1"
    pair[$which]+="$(median "$bin" --data-dir "$dir" start focus --for 25m '&&' "$bin" --data-dir "$dir" stop) "
    "$bin" --data-dir "$dir" start focus --for 8h >/dev/null
    status[$which]+="$(median "$bin" --data-dir "$dir" status) "
    "$bin" --data-dir "$dir" stop >/dev/null
    log[$which]+="$(median "$bin" --data-dir "$dir" log --since 2026-10-01) "
    report[$which]+="$(median "$bin" --data-dir "$dir" report --since 2026-10-01) "
  done
done
best() { tr ' ' '\n' | grep . | sort -n | head -1; }

echo "| what (median ms, best of $rounds rounds of $runs) | before ($rev), 1 device | after, 1 device | after, 2 devices | after, 10 devices |"
echo "|---|---|---|---|---|"
for what in pair status log report; do
  declare -n table=$what
  label=$what; [ "$what" = pair ] && label='`start` + `stop`'; [ "$what" != pair ] && label="\`$what\`"
  echo "| $label | $(echo "${table[before-1]}" | best) | $(echo "${table[after-1]}" | best) | $(echo "${table[after-2]}" | best) | $(echo "${table[after-10]}" | best) |"
done
