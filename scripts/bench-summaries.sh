#!/usr/bin/env bash
# Summaries benchmark: ROUGE and speed of the configured summary engine on
# a set of reference summaries (default: the dev set), release build, the
# process held to one core (taskset), so articles/s is per core.
#
#   scripts/bench-summaries.sh [PAIRS.jsonl] [gleaner eval-summaries options]
set -euo pipefail
cd "$(dirname "$0")/.."
pairs=${1:-../shared/datasets/summaries-bbc100/pairs.jsonl}
shift || true
cargo build --release -p gleaner >&2
if command -v taskset >/dev/null; then
  exec taskset -c 0 target/release/gleaner eval-summaries "$pairs" "$@"
fi
exec target/release/gleaner eval-summaries "$pairs" "$@"
