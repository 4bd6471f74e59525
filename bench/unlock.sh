#!/usr/bin/env bash
# How late the block comes down after an unlock countdown (`unlock
# delay:DURATION`) runs out, with the daemon running and the hosts shield on a
# hosts file of its own (results for docs/performance.md): N strict sessions,
# each stopped with a 1-second countdown; the hosts file is polled every
# 0.5 ms and the lowering compared with the countdown's `endsAt`.
# Usage: bench/unlock.sh [N]   (RETIME=path runs another build; default: the
# static release build, built first). Takes about 2 s per countdown.
set -euo pipefail
cd "$(dirname "$0")/.."
count=${1:-20}
source bench/lib/release.sh
RETIME=${RETIME:-$(release_retime)}
work=$(mktemp -d)
trap 'kill $(jobs -p) 2>/dev/null || true; rm -rf "$work"' EXIT
data="$work/data"
hosts="$work/hosts"
printf '127.0.0.1 localhost\n' > "$hosts"
export HOME="$work/home" RETIME_HOME="$data"
"$RETIME" config set shield.hostsFile "$hosts" >/dev/null
"$RETIME" config set shield hosts >/dev/null
"$RETIME" config set unlock delay:1s >/dev/null
"$RETIME" group create g --block example.com >/dev/null
"$RETIME" daemon run 2>/dev/null &
until "$RETIME" daemon status >/dev/null 2>&1; do sleep 0.05; done
python3 - "$RETIME" "$hosts" "$count" <<'PY'
import datetime, json, statistics, subprocess, sys, time
retime, hosts, count = sys.argv[1], sys.argv[2], int(sys.argv[3])
def blocked():
    with open(hosts) as f:
        return "example.com" in f.read()
late = []
for _ in range(count):
    subprocess.run([retime, "start", "g", "--for", "10m", "--strict"], check=True, capture_output=True)
    answer = json.loads(subprocess.run([retime, "--json", "stop"], check=True, capture_output=True, text=True).stdout)
    ends = datetime.datetime.fromisoformat(answer["unlock"]["endsAt"].replace("Z", "+00:00")).timestamp()
    deadline = time.time() + 10
    while blocked() and time.time() < deadline:
        time.sleep(0.0005)
    late.append((time.time() - ends) * 1000)
    time.sleep(0.2)
print(f"| block lowered after an unlock countdown's end ({count} countdowns) | {statistics.median(late):.1f} ms | {max(late):.1f} ms |")
PY
