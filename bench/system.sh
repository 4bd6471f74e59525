#!/usr/bin/env bash
# The system service's benchmarks, on the static release build, as root
# (results for docs/performance.md):
#   - `start` + `stop` through the service against the same pair with the
#     `hosts` shield run as root (the target: within 1.5x), each on a hosts
#     file of its own, never /etc/hosts;
#   - 100 users' blocks raised and lowered at once (100 uids, one session each);
#   - the service's CPU over 30 s with nothing held, and with a strict
#     block held (which it checkpoints once a minute), and its memory.
# Usage: sudo bench/system.sh [RUNS]
set -euo pipefail
cd "$(dirname "$0")/.."
[ "$(id -u)" -eq 0 ] || { echo "run as root: the service runs as root" >&2; exit 1; }
runs=${1:-100}
swift build -c release --static-swift-stdlib --product retime >/dev/null
retime="$PWD/.build/release/retime"
work=$(mktemp -d)
chmod 0755 "$work"
service=""
trap '[ -n "$service" ] && kill "$service" 2>/dev/null; wait 2>/dev/null; rm -rf "$work"' EXIT
printf '127.0.0.1 localhost\n' > "$work/hosts"
printf '127.0.0.1 localhost\n' > "$work/hosts-direct"
# The hosts layer alone: this benchmark runs on the host's network, whose
# firewall it must not touch (bench/layers.sh measures the other layers).
"$retime" system run --socket "$work/run/shield.sock" --state-dir "$work/state" --hosts-file "$work/hosts" \
  --firewall off --apps off --names hosts 2>/dev/null &
service=$!
until [ -S "$work/run/shield.sock" ]; do sleep 0.05; done
export RETIME_SHIELD_SOCKET="$work/run/shield.sock"

direct() { python3 bench/time_runs.py "$runs" "" --direct "$@"; }
cpu_ns() { cat /proc/$1/task/*/schedstat | awk '{ns += $1} END {print ns}'; }

"$retime" --data-dir "$work/through-service" group create g --block example.com --block news.example.org >/dev/null
"$retime" --data-dir "$work/through-service" config set shield system >/dev/null
"$retime" --data-dir "$work/hosts-shield" group create g --block example.com --block news.example.org >/dev/null
"$retime" --data-dir "$work/hosts-shield" config set shield.hostsFile "$work/hosts-direct" >/dev/null
"$retime" --data-dir "$work/hosts-shield" config set shield hosts >/dev/null

echo "| what | median | p90 |"
echo "|---|---|---|"
echo "| start + stop through the system service | $(direct "$retime" --data-dir "$work/through-service" start g --for 25m '&&' "$retime" --data-dir "$work/through-service" stop) |"
echo "| start + stop with the hosts shield, as root | $(direct "$retime" --data-dir "$work/hosts-shield" start g --for 25m '&&' "$retime" --data-dir "$work/hosts-shield" stop) |"

# 100 users at once: each its own uid and data directory, start then stop.
for i in $(seq 1 100); do
  mkdir -p "$work/users/$i" && chown $((20000 + i)):$((20000 + i)) "$work/users/$i"
  setpriv --reuid=$((20000 + i)) --regid=$((20000 + i)) --clear-groups "$retime" --data-dir "$work/users/$i/data" \
    group create g --block "site$i.example" --block example.com >/dev/null
done
began=$(date +%s%N)
for i in $(seq 1 100); do
  setpriv --reuid=$((20000 + i)) --regid=$((20000 + i)) --clear-groups "$retime" --data-dir "$work/users/$i/data" start g >/dev/null &
done
wait_all() { for pid in $(jobs -p); do [ "$pid" = "$service" ] || wait "$pid"; done; }
wait_all
raised=$(date +%s%N)
held=$(grep -c '^0.0.0.0 site' "$work/hosts" || true)
for i in $(seq 1 100); do
  setpriv --reuid=$((20000 + i)) --regid=$((20000 + i)) --clear-groups "$retime" --data-dir "$work/users/$i/data" stop >/dev/null &
done
wait_all
lowered=$(date +%s%N)
left=$(grep -c '^0.0.0.0' "$work/hosts" || true)
echo "| 100 users raise a block at once | $(( (raised - began) / 1000000 )) ms for all | $held of 100 sites in the hosts file |"
echo "| 100 users lower theirs at once | $(( (lowered - raised) / 1000000 )) ms for all | $left lines left |"

# CPU while nothing is held, then while a strict block is held.
sleep 1
before=$(cpu_ns $service); sleep 30; after=$(cpu_ns $service)
idle=$(awk -v a="$before" -v b="$after" 'BEGIN {printf "%.2f", (b - a) / 1e6}')
"$retime" --data-dir "$work/through-service" start g --for 2h --strict >/dev/null
sleep 1
before=$(cpu_ns $service); sleep 30; after=$(cpu_ns $service)
busy=$(awk -v a="$before" -v b="$after" 'BEGIN {printf "%.2f", (b - a) / 1e6}')
rss=$(awk '/VmRSS/ {print $2}' "/proc/$service/status")
echo "| service CPU in 30 s | $idle ms with no block | $busy ms with a strict block held |"
echo "| service resident memory | $((rss / 1024)).$((rss % 1024 * 10 / 1024)) MiB | (a strict block held) |"
"$retime" system release --all >/dev/null
