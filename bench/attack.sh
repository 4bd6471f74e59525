#!/usr/bin/env bash
# The system service under attack by another local user (issue 28), on the
# static release build, as root (results for docs/performance.md): while one
# uid runs every attack of issue 28 at once for SECONDS (inspect of 1,000
# targets in a loop, 300 silent connections reopened as they are cut,
# setPasscode and wrong removePasscode floods), another uid's `start` and
# `stop` through the service are timed (p50/p99), and how late the service
# lifts its 2 s strict blocks after their end; the service's memory and open
# descriptors are sampled every second. Then `inspect` of a request's most
# targets against a 10,000-target block, and the service's memory with
# 1,000 connections open. The hosts layer alone, on a hosts file of its own
# (never /etc/hosts; the firewall is bench/layers.sh's, in a namespace).
# Usage: sudo bench/attack.sh [SECONDS]   (default 60)
#   RETIME_BENCH_BINARY=PATH runs another build instead (an older one, to compare).
#   RETIME_BENCH_CGROUPS= how the CPU is shared, as a machine's cgroups share it:
#     users  (default) as systemd does: the service in system.slice/retime-shield.service,
#            each uid in a user.slice/user-UID.slice of its own, every group the same weight
#     slices the service in system.slice, both users together in user.slice (a machine
#            whose systemd splits the CPU between slices but not between users)
#     one    all in one group, each thread for itself (no CPU controller: the container's default)
#   RETIME_BENCH_HOGS=N: the attacker also runs N processes that only spin (plain CPU load).
#   RETIME_BENCH_NICE=N runs the service at nice N (a unit's Nice=).
#   RETIME_BENCH_WEIGHT=W gives the service's own group weight W (a unit's CPUWeight=, 1-10000).
# The groups are made under a group of the benchmark's own (cgroup v2's cpu.weight, else
# v1's cpu.shares), weighted RETIME_BENCH_SHARE (default 8) times a task of the machine's
# other work so that other builds disturb the figures less; they are removed at the end.
set -euo pipefail
cd "$(dirname "$0")/.."
[ "$(id -u)" -eq 0 ] || { echo "run as root: the service runs as root" >&2; exit 1; }
seconds=${1:-60}
if [ -n "${RETIME_BENCH_BINARY:-}" ]; then retime="$RETIME_BENCH_BINARY"; else
  swift build -c release --static-swift-stdlib --product retime >/dev/null
  retime="$PWD/.build/release/retime"
fi
work=$(mktemp -d)
chmod 0755 "$work"
service=""
cgroups=${RETIME_BENCH_CGROUPS:-users}
case $cgroups in users|slices|one) ;; *) echo "RETIME_BENCH_CGROUPS is users, slices or one" >&2; exit 2;; esac
if [ -f /sys/fs/cgroup/cgroup.controllers ] && grep -qw cpu /sys/fs/cgroup/cgroup.controllers; then
  top=/sys/fs/cgroup/retime-bench-$$; knob=cpu.weight; unit=100
elif [ -f /sys/fs/cgroup/cpu/cpu.shares ]; then
  top=/sys/fs/cgroup/cpu/retime-bench-$$; knob=cpu.shares; unit=1024
else
  echo "no CPU controller (cgroup v2 cpu or v1 cpu.shares) to share the CPU with" >&2; exit 1
fi
group() { # group PATH WEIGHT-IN-UNITS: made (its parents too), weighted
  local path=$top/$1 part=$top
  [ -d "$top" ] || { mkdir "$top"; [ "$knob" = cpu.weight ] && echo +cpu > /sys/fs/cgroup/cgroup.subtree_control; }
  for piece in ${1//\// }; do
    part=$part/$piece
    [ -d "$part" ] || { mkdir "$part"; [ "$knob" = cpu.weight ] && echo +cpu > "$(dirname "$part")/cgroup.subtree_control"; }
  done
  echo $(( $2 * unit / 100 )) > "$path/$knob"
  echo "$path"
}
removegroups() { # deepest first; each empty once its processes are gone
  [ -d "$top" ] || return 0
  local tries; for tries in $(seq 1 50); do
    find "$top" -depth -type d -exec rmdir {} + 2>/dev/null && return 0; sleep 0.1
  done
}
trap '[ -n "$service" ] && kill "$service" 2>/dev/null; wait 2>/dev/null; echo $$ > "$(dirname "$top")/cgroup.procs"; removegroups; rm -rf "$work"' EXIT
mkdir "$top"; echo $((${RETIME_BENCH_SHARE:-8} * unit)) > "$top/$knob"
case $cgroups in
  users)  service_group=$(group system.slice/retime-shield.service "${RETIME_BENCH_WEIGHT:-100}"); group system.slice 100 >/dev/null
          attacker_group=$(group user.slice/user-30001.slice 100); victim_group=$(group user.slice/user-30002.slice 100)
          group user.slice 100 >/dev/null; bench_group=$(group bench 100);;
  slices) service_group=$(group system.slice/retime-shield.service "${RETIME_BENCH_WEIGHT:-100}"); group system.slice 100 >/dev/null
          attacker_group=$(group user.slice 100); victim_group=$attacker_group; bench_group=$(group bench 100);;
  one)    service_group=$(group all 100); attacker_group=$service_group; victim_group=$service_group; bench_group=$service_group;;
esac
echo $$ > "$bench_group/cgroup.procs"
export RETIME_BENCH_ATTACKER_GROUP=$attacker_group RETIME_BENCH_VICTIM_GROUP=$victim_group
printf '127.0.0.1 localhost\n' > "$work/hosts"
nice -n "${RETIME_BENCH_NICE:-0}" "$retime" system run --socket "$work/run/shield.sock" --state-dir "$work/state" --hosts-file "$work/hosts" \
  --firewall off --apps off --names hosts 2>/dev/null &   # never the host's firewall: the name layer's table is one
service=$!
echo "$service" > "$service_group/cgroup.procs"
until [ -S "$work/run/shield.sock" ]; do sleep 0.05; done
echo "CPU shared: $cgroups ($knob); the service at nice ${RETIME_BENCH_NICE:-0}, its group's weight ${RETIME_BENCH_WEIGHT:-100}; ${RETIME_BENCH_HOGS:-0} spinning processes of the attacker's; the benchmark weighted ${RETIME_BENCH_SHARE:-8}x a task of the machine's; load average $(cut -d' ' -f1-3 /proc/loadavg)"
echo "| what | | | |"
echo "|---|---|---|---|"
python3 bench/attack.py "$retime" "$work/run/shield.sock" "$work/hosts" "$service" "$work" "$seconds"
echo "| the attacker's audit trail after it | $(cat "$work/state/users/30001/audit.jsonl"* 2>/dev/null | wc -c) bytes | $(cat "$work/state/users/30001/audit.jsonl"* 2>/dev/null | wc -l) lines | |"
