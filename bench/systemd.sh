#!/usr/bin/env bash
# retime on a real systemd, in a booted box of this machine's OS (results for
# docs/performance.md, "On a real systemd"): runs Tests/System/systemd-box-suite.sh
# RUNS times on the static release build and summarises its figures: the
# socket's silence through `systemctl restart`, a SIGKILL of the main pid and
# a reboot, and the blocked user's connections attempted and leaked through
# each (a client connecting every 20 ms).
# Usage: sudo bench/systemd.sh [RUNS]
set -uo pipefail
cd "$(dirname "$0")/.."
[ "$(id -u)" -eq 0 ] || { echo "run as root: the box needs it" >&2; exit 1; }
runs=${1:-3}
swift build -c release --static-swift-stdlib --product retime >/dev/null || exit 1
out=$(mktemp)
trap 'rm -f "$out"' EXIT
for i in $(seq 1 "$runs"); do
  Tests/System/systemd-box-suite.sh .build/release/retime > "$out.$i" 2>&1
  echo "run $i: $(tail -1 "$out.$i")" >&2
  grep '^figure ' "$out.$i" >> "$out"
  rm -f "$out.$i"
done
python3 - "$out" "$runs" <<'PY'
import statistics, sys
values = {}
for line in open(sys.argv[1]):
    _, name, value = line.split()
    try:
        values.setdefault(name, []).append(float(value))
    except ValueError:
        pass
print(f"| figure ({sys.argv[2]} runs) | median | min | max |")
print("|---|---|---|---|")
for name in sorted(values):
    v = values[name]
    print(f"| {name} | {statistics.median(v):g} | {min(v):g} | {max(v):g} |")
PY
