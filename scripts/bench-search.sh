#!/usr/bin/env bash
# The search bench: an index of N generated articles (default 200,000;
# Zipfian vocabulary, real lengths, 50 sites, 5 languages, dates over a
# year, 2% reposts sent as dedup reports them) made through the index stage, then 2,000 mixed queries
# over HTTP against `gleaner serve` at concurrency 1 and 8 (facets and
# snippets on). Prints indexing articles/s, index bytes per article,
# query latency p50/p95/p99 with queries/s, and (with chromium) how soon
# the page shows results after a keystroke. Release build.
# Usage: [REUSE_INDEX=1] scripts/bench-search.sh [N] [QUERIES]
set -euo pipefail
cd "$(dirname "$0")/.."
n=${1:-200000}
queries=${2:-2000}
work=target/bench-search
# Two builds: with --example, cargo builds the example alone.
cargo build --release -p gleaner >&2
cargo build --release -p gleaner-index --example bench_index >&2
mkdir -p "$work"
if [ -z "${REUSE_INDEX:-}" ] || [ ! -d "$work/index" ]; then
  target/release/examples/bench_index "$n" "$work"
fi
port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
target/release/gleaner serve --data "$work" --listen "127.0.0.1:$port" 2>"$work/serve.log" &
pid=$!
trap 'kill $pid 2>/dev/null || true' EXIT
for _ in $(seq 1 100); do
  curl -fs "http://127.0.0.1:$port/api/v1/stats" >/dev/null 2>&1 && break
  sleep 0.1
done
curl -fs "http://127.0.0.1:$port/api/v1/stats"; echo
python3 scripts/bench-search.py "http://127.0.0.1:$port" "$work/vocab.txt" "$queries"
# The page as a person types on it (chromium over the DevTools protocol),
# when a chromium is installed (scripts/test.sh installs Debian's).
if command -v "${GLEANER_TEST_CHROMIUM:-chromium}" >/dev/null; then
  GLEANER_BENCH_URL="http://127.0.0.1:$port" GLEANER_BENCH_VOCAB="$PWD/$work/vocab.txt" \
    cargo test --release -q -p gleaner --test e2e_browser -- --ignored --nocapture typing_latency 2>&1 \
    | grep '^typing:'
fi
