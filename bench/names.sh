#!/usr/bin/env bash
# What the name layer (issue 28) adds to a DNS lookup, on the static release
# build, as root (results for docs/performance.md). In a network and mount
# namespace of its own (never the host's table or resolv.conf): the test
# suite's DNS responder at 127.0.0.1:53, named by the namespace's
# resolv.conf, and the service with the name layer. One user (65534) blocks
# blocked.test; COUNT questions are asked one after another, over UDP, to
# 127.0.0.1:53:
#   - direct: by another user (65533), whom nothing redirects;
#   - forwarded: open.test by the blocking user, through the service's resolver;
#   - refused: blocked.test by the blocking user, answered by the service;
# and getaddrinfo (getent ahosts, a process each) both ways.
# Usage: sudo bench/names.sh [COUNT]
set -euo pipefail
cd "$(dirname "$0")/.."
[ "$(id -u)" -eq 0 ] || { echo "run as root: the service runs as root" >&2; exit 1; }
for tool in nft ip unshare nsenter setpriv python3; do
  command -v "$tool" >/dev/null || { echo "needs $tool (Debian: apt-get install nftables iproute2 python3)" >&2; exit 1; }
done
count=${1:-2000}
swift build -c release --static-swift-stdlib --product retime >/dev/null
retime="$PWD/.build/release/retime"
helpers="$PWD/Tests/RetimeCLITests/Helpers"
work=$(mktemp -d)
chmod 0755 "$work"
holder=""
cleanup() { [ -n "$holder" ] && kill "$holder" 2>/dev/null; wait 2>/dev/null || true; rm -rf "$work"; }
trap cleanup EXIT
printf '127.0.0.1 localhost\n' > "$work/hosts"
printf 'nameserver 127.0.0.1\n' > "$work/resolv.conf"
printf '{"blocked.test": ["10.0.0.2"], "open.test": ["10.0.0.3"]}' > "$work/records.json"
chmod 0644 "$work"/*
mkdir -m 0777 "$work/home"

unshare --net --mount --propagation private /bin/sh -c "
  ip link set lo up
  mount --bind $work/resolv.conf /etc/resolv.conf
  mount --bind $work/hosts /etc/hosts
  touch $work/ready
  exec sleep 100000" &
holder=$!
until [ -e "$work/ready" ]; do sleep 0.05; done
inside() { nsenter -t "$holder" -n -m "$@"; }
as() { local uid=$1; shift; inside setpriv --reuid="$uid" --regid="$uid" --clear-groups env HOME="$work/home/$uid" RETIME_SHIELD_SOCKET="$work/sock" "$@"; }
inside python3 "$helpers/dns_responder.py" 127.0.0.1 53 "$work/records.json" 300 > "$work/dns.ready" &
until grep -q ready "$work/dns.ready" 2>/dev/null; do sleep 0.05; done
inside "$retime" system run --socket "$work/sock" --state-dir "$work/state" --hosts-file /etc/hosts --firewall off --apps off --names resolver \
  2> "$work/service.log" &
until [ -S "$work/sock" ]; do sleep 0.05; done
mkdir -p "$work/home/65534" "$work/home/65533" && chown 65534 "$work/home/65534" && chown 65533 "$work/home/65533"
as 65534 "$retime" group create work --block blocked.test >/dev/null
as 65534 "$retime" start work --for 30m >/dev/null

# COUNT questions one after another; the median and 99th percentile in µs.
timing='
import random, socket, struct, sys, time
name, count = sys.argv[1], int(sys.argv[2])
q = b"".join(bytes([len(l)]) + l.encode() for l in name.split(".")) + b"\0" + struct.pack("!HH", 1, 1)
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM); s.settimeout(2)
took = []
for i in range(count):
    ident = random.randrange(65536)
    start = time.perf_counter()
    s.sendto(struct.pack("!HHHHHH", ident, 0x0100, 1, 0, 0, 0) + q, ("127.0.0.1", 53))
    reply, _ = s.recvfrom(4096)
    took.append((time.perf_counter() - start) * 1e6)
took.sort()
code = reply[3] & 15
print("%-28s median %6.0f us  p99 %6.0f us  (rcode %d, %d questions)" % (sys.argv[3], took[len(took) // 2], took[len(took) * 99 // 100], code, count))
'
as 65533 python3 -c "$timing" open.test "$count" "direct (65533, open.test)"
as 65534 python3 -c "$timing" open.test "$count" "forwarded (65534, open.test)"
as 65534 python3 -c "$timing" blocked.test "$count" "refused (65534, blocked.test)"
for who in "65533 direct" "65534 through the service"; do
  set -- $who; uid=$1; shift
  start=$(date +%s%N)
  for _ in $(seq 100); do as "$uid" getent ahosts open.test >/dev/null; done
  echo "getent ahosts open.test, $*: $(( ($(date +%s%N) - start) / 100000 )) us a process (100 runs)"
done
as 65534 "$retime" stop >/dev/null
