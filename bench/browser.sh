#!/usr/bin/env bash
# A real browser against the system service (issue 27), on the static
# release build, as root (results for docs/performance.md). The same sandbox
# as BrowserEndToEndTests: a network and mount namespace of its own (never
# the host's table, never the host's /etc: an overlay over /etc whose
# changes land in a temporary directory), the test suite's DNS responder and
# web_server.py serving blocked.test (10.0.0.2) and open.test (10.0.0.3) on
# ports 80 and 443 and DNS over HTTPS at 1.1.1.1, the service with its
# firewall layer, and Debian's Chromium, headless, as nobody, driven by
# Helpers/browser.py. In each DNS mode (Chromium's default, then secure DNS
# at 1.1.1.1), one browser stays open over RUNS sessions, loading
# https://blocked.test/ back to back, and per run:
#   - from `retime start` spawned (the browser polling meanwhile), and from
#     `start` returned, to the first load that fails;
#   - from `retime stop` spawned, and returned, to the first that loads;
#   - how long `start` and `stop` themselves take.
# Usage: sudo bench/browser.sh [RUNS] [default|secure|both]
set -euo pipefail
cd "$(dirname "$0")/.."
[ "$(id -u)" -eq 0 ] || { echo "run as root: the service runs as root" >&2; exit 1; }
for tool in nft ip openssl chromium unshare nsenter setpriv; do
  command -v "$tool" >/dev/null || { echo "needs $tool (Debian: apt-get install nftables iproute2 openssl chromium)" >&2; exit 1; }
done
runs=${1:-20}
modes=${2:-both}
[ "$modes" = both ] && modes="default secure"
swift build -c release --static-swift-stdlib --product retime >/dev/null
retime="$PWD/.build/release/retime"
helpers="$PWD/Tests/RetimeCLITests/Helpers"
work=$(mktemp -d)
chmod 0755 "$work"
pids=()
# A Chromium stopped early may still be writing its profile: remove twice.
cleanup() {
  for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null || true; done; wait 2>/dev/null || true
  rm -rf "$work" 2>/dev/null || { sleep 1; rm -rf "$work"; }
}
trap cleanup EXIT

# A certificate authority, trusted by Chromium's managed policy, and the sites' certificate.
key=(-newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes -days 2)
(cd "$work" && openssl req -x509 "${key[@]}" -subj "/CN=retime bench CA" -keyout ca.key -out ca.pem \
    -addext basicConstraints=critical,CA:TRUE -addext keyUsage=critical,keyCertSign 2>/dev/null &&
  openssl req -x509 "${key[@]}" -subj "/CN=retime bench sites" -CA ca.pem -CAkey ca.key -keyout site.key -out site.pem \
    -addext basicConstraints=critical,CA:FALSE \
    -addext subjectAltName=DNS:blocked.test,DNS:www.blocked.test,DNS:open.test,IP:1.1.1.1 2>/dev/null)
ca=$(grep -v -- ----- "$work/ca.pem" | tr -d '\n')

mkdir -p "$work/etc" "$work/etc-work" "$work/etc/chromium/policies/managed"
printf '127.0.0.1 localhost\n::1 localhost\n' > "$work/etc/hosts"
printf 'nameserver 127.0.0.1\n' > "$work/etc/resolv.conf"
echo '{"blocked.test": ["10.0.0.2"], "www.blocked.test": ["10.0.0.2"], "open.test": ["10.0.0.3"]}' > "$work/records.json"
unshare --net --mount --propagation private sh -c "
  set -e
  ip link set lo up
  for a in 10.0.0.2 10.0.0.3 1.1.1.1; do ip addr add \$a/32 dev lo; done
  ip link add retime0 type veth peer name retime1
  ip link set retime0 addrgenmode none up; ip link set retime1 addrgenmode none up
  ip addr add 192.0.2.1/24 dev retime0
  mount -t overlay retime-etc -o lowerdir=/etc,upperdir=$work/etc,workdir=$work/etc-work /etc
  if [ -e /run/systemd/resolve/resolv.conf ]; then mount --bind $work/etc/resolv.conf /run/systemd/resolve/resolv.conf; fi
  touch $work/ready; exec sleep 100000" &
pids+=($!)
until [ -e "$work/ready" ]; do kill -0 "${pids[0]}" || { echo "the namespace did not come up" >&2; exit 1; }; sleep 0.02; done
inside=(nsenter -t "${pids[0]}" -n -m)
"${inside[@]}" /usr/bin/python3 "$helpers/dns_responder.py" 127.0.0.1 53 "$work/records.json" 300 >"$work/dns.out" & pids+=($!)
"${inside[@]}" /usr/bin/python3 "$helpers/web_server.py" "$work/site.pem" "$work/site.key" "$work/records.json" 300 \
  10.0.0.2 10.0.0.3 1.1.1.1 >"$work/web.out" & pids+=($!)
"${inside[@]}" "$retime" system run --socket "$work/shield.sock" --state-dir "$work/state" --hosts-file /etc/hosts \
  --firewall nftables --apps off 2>/dev/null & pids+=($!)
until [ -S "$work/shield.sock" ] && grep -q ready "$work/dns.out" && grep -q ready "$work/web.out"; do sleep 0.02; done
mkdir -p "$work/user" && chown 65534 "$work/user"
user=(setpriv --reuid=65534 --regid=65534 --clear-groups env -i PATH=/usr/bin:/bin HOME="$work/user"
      RETIME_HOME="$work/user/data" RETIME_SHIELD_SOCKET="$work/shield.sock" NO_COLOR=1)
"${inside[@]}" "${user[@]}" "$retime" group create site --block blocked.test >/dev/null

echo "| DNS mode | what | median | p90 | max |"
echo "|---|---|---|---|---|"
for mode in $modes; do
  policy="{\"CACertificates\": [\"$ca\"]"
  [ "$mode" = secure ] && policy="$policy, \"DnsOverHttpsMode\": \"secure\", \"DnsOverHttpsTemplates\": \"https://1.1.1.1/dns-query\""
  # Written through the overlay, inside: Chromium reads it as it starts.
  echo "$policy}" > "$work/policy.json"
  "${inside[@]}" install -m 0644 "$work/policy.json" /etc/chromium/policies/managed/retime-bench.json
  "${inside[@]}" "${user[@]}" /usr/bin/python3 - "$retime" "$runs" "$mode" "$helpers/browser.py" "$work/user/$mode" <<'PY'
import statistics, subprocess, sys, threading, time
retime, runs, mode, driver, profile = sys.argv[1], int(sys.argv[2]), sys.argv[3], sys.argv[4], sys.argv[5]
browser = subprocess.Popen([sys.executable, driver, "/usr/bin/chromium", profile], stdin=subprocess.PIPE,
                           stdout=subprocess.PIPE, text=True)
def ask(line):
    browser.stdin.write(line + "\n"); browser.stdin.flush()
    return browser.stdout.readline().strip()
assert browser.stdout.readline().strip() == "ready", "the browser did not start"
page = "loaded retime-test-page blocked.test https"
assert ask("load https://blocked.test/") == page, "the site does not load before the session"
figures, notes = {}, set()
def record(what, value):
    figures.setdefault(what, []).append(value * 1000)
def retime_while_polling(command, wanted):
    """Spawns `retime COMMAND`, polls the site in the browser at once: (spawn to exit, spawn to the wanted load)."""
    exited = []
    t0 = time.monotonic()
    process = subprocess.Popen([retime, command, "site"] if command == "start" else [retime, command], stdout=subprocess.DEVNULL)
    waiter = threading.Thread(target=lambda: exited.append((process.wait(), time.monotonic())))
    waiter.start()
    answer = ask(f"until {wanted} https://blocked.test/ 30")
    t1 = time.monotonic()
    waiter.join()
    assert exited[0][0] == 0
    return exited[0][1] - t0, t1 - t0, answer
def retime_then_poll(command, wanted):
    """Runs `retime COMMAND`, then polls: (its run, its return to the wanted load)."""
    t0 = time.monotonic()
    subprocess.run([retime, command, "site"] if command == "start" else [retime, command], stdout=subprocess.DEVNULL, check=True)
    t1 = time.monotonic()
    answer = ask(f"until {wanted} https://blocked.test/ 30")
    return t1 - t0, time.monotonic() - t1, answer
for _ in range(runs):
    for how, run in (("spawned", retime_while_polling), ("returned", retime_then_poll)):
        took, until, answer = run("start", "failed")
        assert answer.startswith("failed "), "still loads during the session: " + answer
        notes.add(answer.split()[1].rstrip(":"))
        record("`retime start`, spawn to exit", took)
        record(f"`start` {how} to the first failed load", until)
        took, until, answer = run("stop", "loaded")
        assert answer.startswith(page), "does not load again after stop: " + answer
        if "retried" in answer:
            notes.add("ERR_NETWORK_CHANGED retried")
        record("`retime stop`, spawn to exit", took)
        record(f"`stop` {how} to the first load that succeeds", until)
browser.stdin.close(); browser.wait(30)
for what in sorted(figures, key=lambda what: ("stop" in what, "returned" in what, "spawned" in what)):
    values = sorted(figures[what])
    p90 = values[min(len(values) - 1, int(round(0.9 * (len(values) - 1))))]
    print(f"| {mode} | {what} | {statistics.median(values):.1f} ms | {p90:.1f} ms | {values[-1]:.1f} ms |")
print(f"| {mode} | (the failed loads: {', '.join(sorted(notes))}) | | | |")
PY
done
echo "($runs runs per mode of each pair; one browser per mode, open throughout)"
