#!/usr/bin/env bash
# Allowances' ends (issue 32; results for docs/performance.md): COUNT times
# (default 20) `retime allow g 1s` during one session, with the daemon
# running; a poller reads the hosts file every 1 ms and notes when the
# block is back. Lateness = when the block was seen back, less the
# allowance's `endsAt` (what `allow --json` said). The hosts file is a
# temporary one: the machine's /etc/hosts is never touched.
# Usage: bench/allowance-ends.sh [COUNT]
#        RETIME=path/to/retime bench/allowance-ends.sh   (another build; default: the release build)
set -euo pipefail
cd "$(dirname "$0")/.."
count=${1:-20}
source bench/lib/release.sh
RETIME=${RETIME:-$(release_retime)}
work=$(mktemp -d)
daemon=""
trap '[ -n "$daemon" ] && kill "$daemon" 2>/dev/null; rm -rf "$work"' EXIT
export TZ=UTC HOME="$work/home" RETIME_SHIELD_SOCKET="$work/no-service.sock"
unset XDG_STATE_HOME DBUS_SESSION_BUS_ADDRESS XDG_RUNTIME_DIR RETIME_HOME
data="$work/data"
mkdir -m 700 "$data"
retime() { "$RETIME" --data-dir "$data" "$@"; }
hosts="$work/hosts"
printf '127.0.0.1 localhost\n' > "$hosts"
retime group create g --block example.com >/dev/null
retime group set-allowance g 24h >/dev/null
retime config set shield.hostsFile "$hosts" >/dev/null
retime config set shield hosts >/dev/null
"$RETIME" --data-dir "$data" daemon run 2>/dev/null &
daemon=$!
until retime daemon status >/dev/null 2>&1; do sleep 0.1; done
retime start g --for 1h >/dev/null
: > "$work/ends"
for _ in $(seq "$count"); do
  retime allow g 1s --json | python3 -c 'import json,sys; print(json.load(sys.stdin)["allowance"]["endsAt"])' >> "$work/ends"
  python3 - "$hosts" <<'PY' >> "$work/seen"
import sys, time
deadline = time.time() + 5
while time.time() < deadline:
    with open(sys.argv[1]) as f:
        if "example.com" in f.read(): break
    time.sleep(0.001)
print(f"{time.time():.6f}")
PY
done
retime stop >/dev/null
kill -TERM $daemon; wait $daemon || true; daemon=""
python3 - "$work/ends" "$work/seen" <<'PY'
import sys
from datetime import datetime, timezone
def stamp(text):
    whole, frac = text.rstrip("Z").split(".") if "." in text else (text.rstrip("Z"), "0")
    return datetime.strptime(whole, "%Y-%m-%dT%H:%M:%S").replace(tzinfo=timezone.utc).timestamp() + float("0." + frac)
ends = [stamp(l.strip()) for l in open(sys.argv[1]) if l.strip()]
seen = [float(l) for l in open(sys.argv[2]) if l.strip()]
late = sorted(round((s - e) * 1000, 1) for s, e in zip(seen, ends))
print("| what | median | max |")
print("|---|---|---|")
print(f"| block seen back after the allowance's end ({len(late)} ends, 1 ms poll) | {late[len(late)//2]} ms | {late[-1]} ms |")
PY
