#!/usr/bin/env bash
# Extraction speed: pages/s of clean + extract (default `auto`) and of a bare
# lol_html pass (drop script/style, concatenate text) over the same pages,
# HTML in memory, one thread, release build, in the same run; and the ratio.
# Usage: scripts/bench-extract.sh [DIR] [EXTRACTOR]
set -euo pipefail
cd "$(dirname "$0")/.."
dir="${1:-../shared/datasets/wcxb-dev}"
# As bench-scale.sh: no fat LTO (a 7-minute build on 2 cores); the
# figures in the README come from such builds.
export CARGO_PROFILE_RELEASE_LTO=off CARGO_PROFILE_RELEASE_CODEGEN_UNITS=16
cargo build --release -q -p gleaner
exec target/release/gleaner eval "$dir" --bench --extractor "${2:-auto}"
