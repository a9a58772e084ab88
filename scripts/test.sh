#!/usr/bin/env bash
# The whole test suite against a real broker: starts the dev broker
# (installing tansu 0.6.0 if needed) and installs chromium if missing (for
# the search page's browser test), runs every test, stops the broker.
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH="$HOME/.cargo/bin:$PATH"
broker_env=$(scripts/broker-start.sh)
eval "$broker_env"
trap 'scripts/broker-stop.sh "$BROKER_DIR"' EXIT
export GLEANER_TEST_BROKERS="$GLEANER_BROKERS"
# The search page is tested in Debian's chromium, headless.
if ! command -v chromium >/dev/null; then
  echo "installing chromium for the browser test" >&2
  (apt-get install -y -qq chromium || { apt-get update -qq && apt-get install -y -qq chromium; }) >&2
fi
export GLEANER_TEST_CHROMIUM="$(command -v chromium)"
echo "dev broker at $GLEANER_BROKERS" >&2
cargo build --workspace --tests --bins
python3 scripts/check-compose.py target/debug/gleaner
cargo test --workspace
