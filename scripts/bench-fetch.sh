#!/usr/bin/env bash
# Fetch throughput and politeness on a loopback farm of 50 hosts (release
# build): pages/s and CPU per page of the fetch stage with no politeness
# delay, then the smallest gap between two requests to one host with a
# 200 ms delay. The farm runs in its own process, so its CPU is not counted.
# Usage: scripts/bench-fetch.sh [HOSTS] [PAGES_PER_HOST]
set -euo pipefail
cd "$(dirname "$0")/.."
hosts="${1:-50}"; pages="${2:-40}"
cargo build --release -q -p gleaner-fetch --example fetch_bench
bin=target/release/examples/fetch_bench
run_farm() {
  coproc FARM { exec "$bin" farm "$1" "$2"; }
  read -r ports <&"${FARM[0]}"
}
run_farm "$hosts" "$pages"
"$bin" crawl 0 $ports
kill "$FARM_PID"; wait "$FARM_PID" 2>/dev/null || true
run_farm "$hosts" 8
"$bin" crawl 200 $ports
first=${ports%% *}
echo "politeness with delay=200ms: $(curl -s "http://127.0.0.1:$first/__stats" || python3 -c "import urllib.request;print(urllib.request.urlopen('http://127.0.0.1:$first/__stats').read().decode().strip())")"
kill "$FARM_PID"; wait "$FARM_PID" 2>/dev/null || true
