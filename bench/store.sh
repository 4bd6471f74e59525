#!/usr/bin/env bash
# Storage benchmarks on a release build: key-value writes and reads, history
# appends with 0 / 10,000 / 100,000 sessions, reading 100,000 sessions.
# Usage: bench/store.sh    (prints a markdown table for docs/performance.md)
set -euo pipefail
cd "$(dirname "$0")/.."
swift build -c release --product StoreBenchmark >/dev/null
echo "| what | median | p99 |"
echo "|---|---|---|"
.build/release/StoreBenchmark
