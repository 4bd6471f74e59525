#!/usr/bin/env bash
# Resolve cost of the DI container, on a release build.
# Usage: bench/di.sh    (prints a markdown table for docs/performance.md)
set -euo pipefail
cd "$(dirname "$0")/.."
swift build -c release --product DIBenchmark >/dev/null
echo "| what | best of 7 rounds, per resolve |"
echo "|---|---|"
.build/release/DIBenchmark
