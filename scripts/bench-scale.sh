#!/usr/bin/env bash
# The scale-out bench (tests/scale.rs): the crawl of 600 wcxb-dev pages on
# six loopback hosts (per-host delay 20 ms) on a dev broker of its own, with
# one instance of every stage and with two of fetch, clean, extract and
# summarize; checks no page is fetched twice, no host is asked sooner than
# its delay across instances, every article indexed once; prints pages/s.
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH="$HOME/.cargo/bin:$PATH"
scripts/tansu-install.sh
export CARGO_PROFILE_RELEASE_LTO=off CARGO_PROFILE_RELEASE_CODEGEN_UNITS=16
cargo test --release -p gleaner --test scale -- --ignored --nocapture --test-threads 1 "${@}" 2>&1 \
  | grep --line-buffered -v '^produced\|^created' | tee target/bench-scale.txt
