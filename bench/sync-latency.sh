#!/usr/bin/env bash
# Sync-to-visible latency of a data folder shared by Syncthing (issue 31),
# on the static release build: two Syncthing instances on 127.0.0.1 (homes
# of their own, no discovery, relays, NAT or reports; file watcher delay
# 1 s), a session tracked on A timed until `retime log` on B lists it,
# median and max of RUNS (results for docs/performance.md).
# Needs syncthing and python3 (Debian: apt-get install syncthing python3).
# Usage: bench/sync-latency.sh [RUNS]   (default 20)
#   RETIME_BENCH_BINARY=PATH runs another build instead.
set -euo pipefail
cd "$(dirname "$0")/.."
runs=${1:-20}
command -v syncthing >/dev/null || { echo "needs syncthing (apt-get install syncthing)" >&2; exit 1; }
retime=${RETIME_BENCH_BINARY:-}
if [ -z "$retime" ]; then
  swift build -c release --static-swift-stdlib --product retime >/dev/null
  retime=.build/release/retime
fi
python3 bench/sync_latency.py "$(realpath "$retime")" "$runs"
