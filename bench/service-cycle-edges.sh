#!/usr/bin/env bash
# A strict cycle's phase edges as the system service moves the block itself
# (issue 32; results for docs/performance.md): the service runs as root on a
# temporary state directory, socket and hosts file (the machine's /etc/hosts
# and firewall are never touched: firewall, names and app layers off); the
# user is `nobody` (setpriv) and runs no daemon, so every edge is the
# service's own. Strict sessions of --cycle 1s/1s --rounds 11 (10 breaks: a
# lowering and a raising each, then the session's end) run one after
# another; a poller notes when the hosts file changes (every 1 ms), and the
# lateness is that instant less the edge's (the session's recorded start
# plus whole seconds).
# Usage (as root): bench/service-cycle-edges.sh [EDGES]   (default 40)
#        RETIME=path/to/retime bench/service-cycle-edges.sh
set -euo pipefail
cd "$(dirname "$0")/.."
[ "$(id -u)" = 0 ] || { echo "run as root: the system service runs as root" >&2; exit 1; }
edges=${1:-40}
rounds=11
length=$(( rounds + rounds - 1 ))
sessions=$(( (edges + length - 1) / length ))
source bench/lib/release.sh
RETIME=${RETIME:-$(release_retime)}
work=$(mktemp -d)
chmod 755 "$work"
service=""
trap '[ -n "$service" ] && kill "$service" 2>/dev/null; rm -rf "$work"' EXIT
hosts="$work/hosts"
printf '127.0.0.1 localhost\n' > "$hosts"
mkdir -m 700 "$work/state"
mkdir -m 755 "$work/run"
"$RETIME" system run --socket "$work/run/shield.sock" --state-dir "$work/state" --hosts-file "$hosts" \
  --firewall off --apps off --names hosts 2>"$work/service.log" &
service=$!
until [ -S "$work/run/shield.sock" ]; do sleep 0.05; done
mkdir -m 700 "$work/user"
chown 65534:65534 "$work/user"
user() {
  setpriv --reuid=65534 --regid=65534 --clear-groups env -i PATH=/usr/bin:/bin TZ=UTC HOME="$work/user" \
    RETIME_SHIELD_SOCKET="$work/run/shield.sock" "$RETIME" --data-dir "$work/user/data" "$@"
}
user group create g --block example.com >/dev/null
user config set shield system >/dev/null

python3 bench/lib/hosts_changes.py "$hosts" "$work/seen" "$(( sessions * (length + 2) + 3 ))" &
poller=$!
sleep 0.5
: > "$work/starts"
for _ in $(seq "$sessions"); do
  user start g --cycle 1s/1s --rounds "$rounds" --strict --json >> "$work/starts"
  echo >> "$work/starts"
  sleep $(( length + 2 ))
done
wait $poller

python3 - "$work/seen" "$work/starts" "$length" <<'PY'
import json, sys
from datetime import datetime, timezone
seen_path, starts_path, length = sys.argv[1], sys.argv[2], int(sys.argv[3])
def stamp(text):
    whole, frac = text.rstrip("Z").split(".") if "." in text else (text.rstrip("Z"), "0")
    return datetime.strptime(whole, "%Y-%m-%dT%H:%M:%S").replace(tzinfo=timezone.utc).timestamp() + float("0." + frac)
starts = [stamp(json.loads(l)["session"]["startedAt"]) for l in open(starts_path) if l.strip()]
# Lowered at odd seconds, raised at even ones, lowered at the end; a change
# within half a second of a start is that start's raise, not an edge.
due = sorted(s + i for s in starts for i in range(1, length + 1))
seen = [float(line.split()[0]) for line in open(seen_path)]
seen = [at for at in seen if all(abs(at - s) > 0.5 for s in starts)]
if len(seen) != len(due): print(f"warning: {len(seen)} changes seen for {len(due)} edges")
late = sorted(round((at - edge) * 1000, 1) for at, edge in zip(seen, due))
print("| what | median | max |")
print("|---|---|---|")
print(f"| hosts file seen changed after the edge, by the service alone ({len(late)} edges, 1 ms poll) | {late[len(late)//2]} ms | {late[-1]} ms |")
PY
