#!/usr/bin/env bash
# Stops the dev broker started by scripts/broker-start.sh and removes its data.
# Usage: scripts/broker-stop.sh [BROKER_DIR]   (default: $BROKER_DIR)
set -euo pipefail
dir="${1:-${BROKER_DIR:-}}"
[ -n "$dir" ] && [ -f "$dir/broker.pid" ] || { echo "no broker dir given" >&2; exit 1; }
pid=$(cat "$dir/broker.pid")
kill "$pid" 2>/dev/null || true
for _ in $(seq 1 50); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
kill -9 "$pid" 2>/dev/null || true
case "$dir" in /tmp/*|"${TMPDIR:-/tmp}"/*) rm -rf "$dir" ;; esac
