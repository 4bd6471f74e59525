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
trap '[ -n "$service" ] && kill "$service" 2>/dev/null; wait 2>/dev/null; rm -rf "$work"' EXIT
printf '127.0.0.1 localhost\n' > "$work/hosts"
"$retime" system run --socket "$work/run/shield.sock" --state-dir "$work/state" --hosts-file "$work/hosts" \
  --firewall off --apps off 2>/dev/null &
service=$!
until [ -S "$work/run/shield.sock" ]; do sleep 0.05; done
echo "| what | | | |"
echo "|---|---|---|---|"
python3 bench/attack.py "$retime" "$work/run/shield.sock" "$work/hosts" "$service" "$work" "$seconds"
echo "| the attacker's audit trail after it | $(cat "$work/state/users/30001/audit.jsonl"* 2>/dev/null | wc -c) bytes | $(cat "$work/state/users/30001/audit.jsonl"* 2>/dev/null | wc -l) lines | |"
