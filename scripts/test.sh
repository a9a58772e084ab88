#!/usr/bin/env bash
# The whole test suite against a real broker: starts the dev broker
# (installing tansu 0.6.0 if needed), runs every test, stops the broker.
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH="$HOME/.cargo/bin:$PATH"
broker_env=$(scripts/broker-start.sh)
eval "$broker_env"
trap 'scripts/broker-stop.sh "$BROKER_DIR"' EXIT
export GLEANER_TEST_BROKERS="$GLEANER_BROKERS"
echo "dev broker at $GLEANER_BROKERS" >&2
cargo build --workspace --tests --bins
python3 scripts/check-compose.py target/debug/gleaner
cargo test --workspace
