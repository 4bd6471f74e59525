#!/usr/bin/env bash
# The fleet simulation at scale (issue 43): SEEDS seeded runs of 2 to 10
# devices over the real use cases (Tests/RetimeCLITests/Fleet/), every
# invariant checked after every step; prints the failing seeds, each with
# its replay command, and the rate (results for docs/performance.md).
# The test build is a debug build (`swift build --build-tests`): the rate
# is that of the suite, not of the release binary.
# Usage: bench/fleet.sh [SEEDS] [FIRST_SEED]   (default 100000 from 1)
set -euo pipefail
cd "$(dirname "$0")/.."
seeds=${1:-100000}
first=${2:-1}
swift build --build-tests >/dev/null
start=$(date +%s.%N)
set +e
RETIME_FLEET_SEEDS=$seeds RETIME_FLEET_FIRST_SEED=$first RETIME_FLEET_FAILURES=1000000 \
  swift test --skip-build --filter 'FleetSimulationTests/seededRuns' >/tmp/retime-fleet-bench.$$ 2>&1
status=$?
set -e
end=$(date +%s.%N)
grep -E '^  seed [0-9]+: step|^replay:' /tmp/retime-fleet-bench.$$ | sort -u || true
failed=$(grep -cE '^  seed [0-9]+: step' /tmp/retime-fleet-bench.$$ || true)
rm -f /tmp/retime-fleet-bench.$$
python3 - "$seeds" "$start" "$end" "$failed" "$(nproc)" <<'PY'
import sys
seeds, start, end, failed, cores = int(sys.argv[1]), float(sys.argv[2]), float(sys.argv[3]), int(sys.argv[4]), sys.argv[5]
took = end - start
print(f"{seeds} seeds in {took:.0f} s on {cores} cores: {seeds / took:.1f} seeds/s; {failed} failing line(s)")
PY
exit $status
