#!/usr/bin/env bash
# Issue 44: one user re-raising thousands of fresh names in a loop, and how
# long another user's `start` takes meanwhile. Runs a system service of its
# own (temporary socket, state and hosts file; firewall, apps and the name
# layer off: nothing of the machine's is touched) as root, the victim as
# uid 65533 and the attacker as 65534 (setpriv).
#
#   sudo bench/fresh-names.sh [SECONDS] [BINARY]    (defaults: 10, .build/release/retime)
#
# Prints the victim's `start` times idle and under the attack (median and
# max of ROUNDS) and what the attacker's raises got (accepted, told to slow down).
set -euo pipefail
cd "$(dirname "$0")/.."
SECONDS_UNDER=${1:-10}
B=$(realpath "${2:-.build/release/retime}")
ROUNDS=8
[ "$(id -u)" = 0 ] || { echo "fresh-names: needs root"; exit 1; }
R=$(mktemp -d /tmp/retime-fresh.XXXXXX); chmod 755 "$R"
mkdir -p "$R/run" "$R/state" "$R/victim"; chown 65533 "$R/victim"
echo "127.0.0.1 localhost" > "$R/hosts"
"$B" system run --socket "$R/run/s.sock" --state-dir "$R/state" --hosts-file "$R/hosts" --firewall off --apps off --names hosts \
  > "$R/service.log" 2>&1 &
SERVICE=$!
trap 'kill $SERVICE 2>/dev/null; rm -rf "$R"' EXIT
for _ in $(seq 1 100); do [ -S "$R/run/s.sock" ] && break; sleep 0.05; done
victim() { setpriv --reuid=65533 --regid=65533 --clear-groups env HOME="$R/victim" RETIME_SHIELD_SOCKET="$R/run/s.sock" \
  "$B" --data-dir "$R/victim/data" "$@"; }
victim group create work --block victim.example >/dev/null
starts() {   # ROUNDS starts and stops; prints "median max" of the starts, in s
  local times=()
  for _ in $(seq 1 $ROUNDS); do
    local a b; a=$(date +%s.%N); victim start work --for 10m >/dev/null 2>&1; b=$(date +%s.%N); victim stop >/dev/null 2>&1
    times+=("$(echo "$b - $a" | bc)")
  done
  printf '%s\n' "${times[@]}" | sort -n | awk '{v[NR]=$1} END {printf "median %.3f s, max %.3f s\n", v[int((NR+1)/2)], v[NR]}'
}
echo "idle: $(starts)"
cat > "$R/attack.py" <<'PY'
import json, socket, sys, time, uuid
path, seconds = sys.argv[1], float(sys.argv[2])
def ask(request):
    s = socket.socket(socket.AF_UNIX); s.connect(path)
    s.sendall((json.dumps(request) + "\n").encode())
    data = b""
    while not data.endswith(b"\n"):
        chunk = s.recv(1 << 16)
        if not chunk: break
        data += chunk
    s.close(); return data
letters = "abcdefghijklmnopqrstuvwxyz"
session, end, n, accepted, slowed = str(uuid.uuid4()), time.time() + seconds, 0, 0, 0
while time.time() < end:
    prefix = letters[n % 26] + letters[n // 26 % 26]; n += 1
    answer = ask({"version": 1, "op": "raise", "session": session, "targets": ["%s%d.io" % (prefix, i) for i in range(4500)]})
    if b'"ok":true' in answer: accepted += 1
    elif b"slowDown" in answer: slowed += 1; time.sleep(0.01)
    else: print(answer[:200].decode()); break
print("attacker: %d raises of 4,500 fresh names accepted, %d told to slow down, in %.0f s" % (accepted, slowed, seconds))
PY
chmod 644 "$R/attack.py"
setpriv --reuid=65534 --regid=65534 --clear-groups /usr/bin/python3 "$R/attack.py" "$R/run/s.sock" "$SECONDS_UNDER" > "$R/attack.out" 2>&1 &
ATTACK=$!
sleep 2
echo "under the attack: $(starts)"
wait $ATTACK
cat "$R/attack.out"
